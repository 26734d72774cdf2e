//! Browsing stored levels: summaries in keyset order.

use levelforge_games::Difficulty;
use serde::Serialize;
use sqlx::any::AnyRow;
use sqlx::{Any, QueryBuilder, Row};

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

/// Adds the page's WHERE clause to `q` and, for `above_par_min` only, first the join that
/// brings each level's par-bucket mean rating (`par_rating`), scoped to the same game and
/// tier.
fn push_filter(q: &mut QueryBuilder<Any>, b: &Browse) {
    if let Some(min) = b.above_par_min {
        q.push(
            " LEFT JOIN (SELECT game AS bucket_game, difficulty AS bucket_tier, par AS bucket_par, \
             AVG(rating) AS par_rating FROM levels WHERE rated_plays > 0 AND game = ",
        )
        .push_bind(b.game);
        if let Some(d) = b.difficulty {
            q.push(" AND difficulty = ").push_bind(d.as_str());
        }
        q.push(
            " GROUP BY game, difficulty, par) buckets \
             ON bucket_game = game AND bucket_tier = difficulty AND bucket_par = par",
        );
        q.push(" WHERE rated_plays > 0 AND rating - par_rating >= ")
            .push_bind(min);
    } else {
        q.push(" WHERE 1 = 1");
    }
    q.push(" AND game = ").push_bind(b.game);
    if let Some(d) = b.difficulty {
        q.push(" AND difficulty = ").push_bind(d.as_str());
    }
    if let Some(min) = b.par_min {
        q.push(" AND par >= ").push_bind(i64::from(min));
    }
    if let Some(max) = b.par_max {
        q.push(" AND par <= ").push_bind(i64::from(max));
    }
    if b.rating_min.is_some() || b.rating_max.is_some() {
        q.push(" AND rated_plays > 0");
    }
    if let Some(min) = b.rating_min {
        q.push(" AND rating >= ").push_bind(min);
    }
    if let Some(max) = b.rating_max {
        q.push(" AND rating <= ").push_bind(max);
    }
    if let Some(after) = b.after {
        q.push(" AND (par, seed");
        // With one tier the row comparison matches the (game, difficulty, par, seed) index.
        if b.difficulty.is_none() {
            q.push(", difficulty");
        }
        q.push(") > (")
            .push_bind(i64::from(after.par))
            .push(", ")
            .push_bind(seed_to_column(after.seed));
        if b.difficulty.is_none() {
            q.push(", ").push_bind(after.difficulty.as_str());
        }
        q.push(")");
    }
}

fn summary(row: &AnyRow) -> Result<LevelSummary, sqlx::Error> {
    let rating: f64 = row.try_get("rating")?;
    let rated_plays: i64 = row.try_get("rated_plays")?;
    Ok(LevelSummary {
        game: row.try_get("game")?,
        difficulty: row.try_get("difficulty")?,
        seed: seed_from_column(row.try_get("seed")?),
        version: row.try_get("version")?,
        par: row.try_get("par")?,
        attempts: row.try_get("attempts")?,
        states: row.try_get("states")?,
        solution_count: row.try_get("solution_count")?,
        generate_ms: row.try_get("generate_ms")?,
        solve_ms: row.try_get("solve_ms")?,
        created_at: row.try_get("created_at")?,
        rating: (rated_plays > 0).then(|| tenths(rating)),
        rating_deviation: tenths(row.try_get("rating_deviation")?),
        rated_plays,
        rating_above_par: None, // filled in by `with_par_ratings`
    })
}

impl SqlStore {
    pub(super) async fn browse_page(&self, b: &Browse) -> Result<Vec<LevelSummary>, StoreError> {
        let mut q = QueryBuilder::new(format!(
            "SELECT game, difficulty, seed, version, par, attempts, states, solution_count, \
             generate_ms, solve_ms, {} AS created_at, rating, rating_deviation, rated_plays \
             FROM levels",
            self.backend().created_at_text(),
        ));
        push_filter(&mut q, b);
        q.push(" ORDER BY par, seed, difficulty LIMIT ")
            .push(b.limit);
        let rows = self.backend().query(&mut q).fetch_all(self.pool()).await?;
        let mut page: Vec<LevelSummary> = rows.iter().map(summary).collect::<Result<_, _>>()?;
        self.with_par_ratings(b.game, &mut page).await?;
        Ok(page)
    }

    /// Sets each rated summary's `rating_above_par`: its distance from the mean rating of
    /// the rated levels of its (tier, par), read from the par rollups of just the buckets
    /// on the page.
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
        let mut q = QueryBuilder::new(
            "SELECT difficulty, par, CAST(SUM(rating_micros) AS BIGINT) AS rating_micros, \
             CAST(SUM(rated_levels) AS BIGINT) AS rated_levels FROM stats_pars WHERE game = ",
        );
        q.push_bind(game.to_string()).push(" AND (");
        let mut wanted = q.separated(" OR ");
        for (tier, par) in &buckets {
            wanted
                .push("(difficulty = ")
                .push_bind_unseparated(tier.to_string())
                .push_unseparated(" AND par = ")
                .push_bind_unseparated(*par)
                .push_unseparated(")");
        }
        q.push(") GROUP BY difficulty, par");
        let rows = self.backend().query(&mut q).fetch_all(self.pool()).await?;
        let mut means = Vec::with_capacity(rows.len());
        for row in &rows {
            let tier: String = row.try_get("difficulty")?;
            let par: i64 = row.try_get("par")?;
            let micros: i64 = row.try_get("rating_micros")?;
            let rated: i64 = row.try_get("rated_levels")?;
            if rated > 0 {
                means.push((tier, par, micros as f64 / 1e6 / rated as f64));
            }
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
