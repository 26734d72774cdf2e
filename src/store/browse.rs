//! Browsing stored levels: summaries in keyset order, and the dynamic filter the
//! designer queries share.

use levelforge_games::Difficulty;
use serde::Serialize;
use sqlx::Row;
use sqlx::any::{AnyArguments, AnyRow};
use sqlx::query::Query;

use super::sql::SqlStore;
use super::{StoreError, seed_from_column, seed_to_column};
use crate::rating::tenths;

/// A page request. The order is (par, seed, difficulty): par first because designers
/// browse by difficulty of play; seed and difficulty make the position unique in a game.
#[derive(Clone, Debug)]
pub struct Browse {
    pub game: &'static str,
    pub difficulty: Option<Difficulty>,
    pub par_min: Option<u32>,
    pub par_max: Option<u32>,
    /// Player rating bounds; either one limits the page to rated levels.
    pub rating_min: Option<f64>,
    pub rating_max: Option<f64>,
    /// Keeps levels rated at least this far above the mean rating of the rated levels
    /// with the same game, tier and par: the ones players find harder than par says.
    pub above_par_min: Option<f64>,
    /// Rows wanted; the store returns at most this many.
    pub limit: u32,
    pub after: Option<Cursor>,
}

/// The position of the last level of a page: `par:seed:difficulty` in URLs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cursor {
    pub par: u32,
    pub seed: u64,
    pub difficulty: Difficulty,
}

impl Cursor {
    pub fn parse(text: &str) -> Result<Cursor, String> {
        let bad =
            || format!("`after` must be `par:seed:difficulty` (as in a `next` link), not `{text}`");
        let mut parts = text.split(':');
        let (Some(par), Some(seed), Some(difficulty), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(bad());
        };
        Ok(Cursor {
            par: par.parse().map_err(|_| bad())?,
            seed: seed.parse().map_err(|_| bad())?,
            difficulty: difficulty.parse().map_err(|_| bad())?,
        })
    }
}

impl std::fmt::Display for Cursor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.par, self.seed, self.difficulty)
    }
}

/// One stored level without its document.
#[derive(Clone, Debug, Serialize)]
pub struct LevelSummary {
    pub game: String,
    pub difficulty: String,
    pub seed: u64,
    pub version: i64,
    pub par: i64,
    pub attempts: i64,
    pub states: i64,
    pub solution_count: i64,
    pub generate_ms: i64,
    pub solve_ms: i64,
    pub created_at: String,
    /// The Glicko-2 rating from players' first plays; null until the first rated play.
    pub rating: Option<f64>,
    pub rating_deviation: f64,
    pub rated_plays: i64,
    /// `rating` minus the mean rating of the rated levels of the same game, tier and
    /// par; null until rated.
    pub rating_above_par: Option<f64>,
}

impl LevelSummary {
    pub fn cursor(&self) -> Option<Cursor> {
        Some(Cursor {
            par: u32::try_from(self.par).ok()?,
            seed: self.seed,
            difficulty: self.difficulty.parse().ok()?,
        })
    }
}

/// A value bound to a placeholder.
#[derive(Clone, Debug)]
pub(super) enum Arg {
    Text(String),
    Int(i64),
    Float(f64),
}

/// A WHERE clause built from optional conditions, with its `$N` arguments in order.
#[derive(Clone, Debug, Default)]
pub(super) struct Filter {
    conditions: Vec<String>,
    pub(super) args: Vec<Arg>,
}

impl Filter {
    /// The placeholder of a new argument.
    pub(super) fn arg(&mut self, value: Arg) -> String {
        self.args.push(value);
        format!("${}", self.args.len())
    }

    /// Adds `condition`, in which `{}` stands for the placeholder of `value`.
    pub(super) fn and(&mut self, condition: &str, value: Arg) {
        let placeholder = self.arg(value);
        self.conditions.push(condition.replace("{}", &placeholder));
    }

    pub(super) fn and_sql(&mut self, condition: String) {
        self.conditions.push(condition);
    }

    pub(super) fn where_clause(&self) -> String {
        if self.conditions.is_empty() {
            String::new()
        } else {
            format!(" WHERE {}", self.conditions.join(" AND "))
        }
    }

    pub(super) fn bind<'q>(
        &self,
        mut query: Query<'q, sqlx::Any, AnyArguments>,
    ) -> Query<'q, sqlx::Any, AnyArguments> {
        for arg in &self.args {
            query = match arg {
                Arg::Text(text) => query.bind(text.clone()),
                Arg::Int(int) => query.bind(*int),
                Arg::Float(float) => query.bind(*float),
            };
        }
        query
    }
}

/// The WHERE clause of a page and, for `above_par_min` only, the join that brings each
/// level's par-bucket mean rating (`par_rating`), scoped to the same game and tier.
fn browse_filter(q: &Browse) -> (Filter, String) {
    let mut filter = Filter::default();
    let game = filter.arg(Arg::Text(q.game.into()));
    filter.and_sql(format!("game = {game}"));
    let mut bucket_scope = format!("game = {game}");
    if let Some(d) = q.difficulty {
        let tier = filter.arg(Arg::Text(d.as_str().into()));
        filter.and_sql(format!("difficulty = {tier}"));
        bucket_scope += &format!(" AND difficulty = {tier}");
    }
    if let Some(min) = q.par_min {
        filter.and("par >= {}", Arg::Int(min.into()));
    }
    if let Some(max) = q.par_max {
        filter.and("par <= {}", Arg::Int(max.into()));
    }
    if q.rating_min.is_some() || q.rating_max.is_some() {
        filter.and_sql("rated_plays > 0".into());
    }
    if let Some(min) = q.rating_min {
        filter.and("rating >= {}", Arg::Float(min));
    }
    if let Some(max) = q.rating_max {
        filter.and("rating <= {}", Arg::Float(max));
    }
    if let Some(min) = q.above_par_min {
        filter.and(
            "rated_plays > 0 AND rating - par_rating >= {}",
            Arg::Float(min),
        );
    }
    if let Some(after) = q.after {
        let par = filter.arg(Arg::Int(after.par.into()));
        let seed = filter.arg(Arg::Int(seed_to_column(after.seed)));
        // With one tier the row comparison matches the (game, difficulty, par, seed) index.
        if q.difficulty.is_some() {
            filter.and_sql(format!("(par, seed) > ({par}, {seed})"));
        } else {
            let tier = filter.arg(Arg::Text(after.difficulty.as_str().into()));
            filter.and_sql(format!("(par, seed, difficulty) > ({par}, {seed}, {tier})"));
        }
    }
    if q.above_par_min.is_none() {
        return (filter, String::new());
    }
    let join = format!(
        " LEFT JOIN (SELECT game AS bucket_game, difficulty AS bucket_tier, par AS bucket_par, \
         AVG(rating) AS par_rating FROM levels WHERE {bucket_scope} AND rated_plays > 0 \
         GROUP BY game, difficulty, par) buckets \
         ON bucket_game = game AND bucket_tier = difficulty AND bucket_par = par"
    );
    (filter, join)
}

fn summary(row: &AnyRow) -> Result<LevelSummary, sqlx::Error> {
    let rating: f64 = row.try_get(11)?;
    let rated_plays: i64 = row.try_get(13)?;
    Ok(LevelSummary {
        game: row.try_get(0)?,
        difficulty: row.try_get(1)?,
        seed: seed_from_column(row.try_get(2)?),
        version: row.try_get(3)?,
        par: row.try_get(4)?,
        attempts: row.try_get(5)?,
        states: row.try_get(6)?,
        solution_count: row.try_get(7)?,
        generate_ms: row.try_get(8)?,
        solve_ms: row.try_get(9)?,
        created_at: row.try_get(10)?,
        rating: (rated_plays > 0).then(|| tenths(rating)),
        rating_deviation: tenths(row.try_get(12)?),
        rated_plays,
        rating_above_par: None, // filled in by `with_par_ratings`
    })
}

impl SqlStore {
    pub(super) async fn browse_page(&self, q: &Browse) -> Result<Vec<LevelSummary>, StoreError> {
        let (filter, join) = browse_filter(q);
        let sql = format!(
            "SELECT game, difficulty, seed, version, par, attempts, states, solution_count, \
             generate_ms, solve_ms, {created}, rating, rating_deviation, rated_plays \
             FROM levels{join}{where_clause} \
             ORDER BY par, seed, difficulty LIMIT {limit}",
            created = self.backend().created_at_text(),
            where_clause = filter.where_clause(),
            limit = q.limit,
        );
        let rows = filter
            .bind(sqlx::query(sqlx::AssertSqlSafe(sql)))
            .fetch_all(self.pool())
            .await?;
        let mut page: Vec<LevelSummary> = rows.iter().map(summary).collect::<Result<_, _>>()?;
        self.with_par_ratings(q.game, &mut page).await?;
        Ok(page)
    }

    /// Sets each rated summary's `rating_above_par`: its distance from the mean rating of
    /// the rated levels of its (tier, par), by one grouped query over just the buckets on
    /// the page, through the (game, difficulty, par) index.
    async fn with_par_ratings(
        &self,
        game: &str,
        page: &mut [LevelSummary],
    ) -> Result<(), StoreError> {
        let mut buckets: Vec<(&str, i64)> = page
            .iter()
            .filter(|level| level.rated_plays > 0)
            .map(|level| (level.difficulty.as_str(), level.par))
            .collect();
        buckets.sort_unstable();
        buckets.dedup();
        if buckets.is_empty() {
            return Ok(());
        }
        let mut filter = Filter::default();
        filter.and("game = {}", Arg::Text(game.into()));
        filter.and_sql("rated_plays > 0".into());
        let wanted: Vec<String> = buckets
            .iter()
            .map(|(tier, par)| {
                let tier = filter.arg(Arg::Text((*tier).into()));
                let par = filter.arg(Arg::Int(*par));
                format!("(difficulty = {tier} AND par = {par})")
            })
            .collect();
        filter.and_sql(format!("({})", wanted.join(" OR ")));
        let sql = format!(
            "SELECT difficulty, par, AVG(rating) FROM levels{} GROUP BY difficulty, par",
            filter.where_clause()
        );
        let rows = filter
            .bind(sqlx::query(sqlx::AssertSqlSafe(sql)))
            .fetch_all(self.pool())
            .await?;
        let mut means = Vec::with_capacity(rows.len());
        for row in &rows {
            let tier: String = row.try_get(0)?;
            let par: i64 = row.try_get(1)?;
            let mean: f64 = row.try_get(2)?;
            means.push((tier, par, mean));
        }
        for level in page.iter_mut() {
            let mean = means
                .iter()
                .find(|(tier, par, _)| *tier == level.difficulty && *par == level.par)
                .map(|(_, _, mean)| *mean);
            level.rating_above_par = match (level.rating, mean) {
                (Some(rating), Some(mean)) => Some(tenths(rating - mean)),
                _ => None,
            };
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_reject_garbage() {
        let c = Cursor {
            par: 7,
            seed: u64::MAX,
            difficulty: Difficulty::Hard,
        };
        assert_eq!(Cursor::parse(&c.to_string()), Ok(c));
        for bad in [
            "",
            "7",
            "7:1",
            "7:1:insane",
            "x:1:easy",
            "7:-1:easy",
            "7:1:easy:9",
        ] {
            assert!(Cursor::parse(bad).is_err(), "{bad}");
        }
    }
}
