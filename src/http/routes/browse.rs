//! Designer routes over stored levels: browsing (keyset pages) and statistics.

use axum::Json;
use axum::extract::{FromRequestParts, Query, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use levelforge_games::{Difficulty, registry};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::http::state::AppState;
use jiff::civil::Date;
use jiff::tz::TimeZone;
use jiff::{Span, Timestamp};

use super::daily::Day;
use crate::http::params;
use crate::http::problem::ApiError;
use crate::service::store::{
    Browse, BrowseSort, Cursor, DayRange, GroupStats, LevelSummary, Percentiles, StatsFilter,
};

pub const BROWSE_DEFAULT_LIMIT: u32 = 50;
pub const BROWSE_MAX_LIMIT: u32 = 200;

#[derive(Debug, Default, Deserialize, FromRequestParts)]
#[from_request(via(Query), rejection(ApiError))]
pub struct BrowseQuery {
    pub game: Option<String>,
    pub difficulty: Option<String>,
    #[serde(default, deserialize_with = "params::canonical_param")]
    pub par_min: Option<u32>,
    #[serde(default, deserialize_with = "params::canonical_param")]
    pub par_max: Option<u32>,
    pub rating_min: Option<f64>,
    pub rating_max: Option<f64>,
    pub above_par_min: Option<f64>,
    pub prior_gap_min: Option<f64>,
    pub sort: Option<String>,
    #[serde(default, deserialize_with = "params::canonical_param")]
    pub limit: Option<u32>,
    pub after: Option<String>,
}

/// A tier named in a query string: unlike a path segment, a bad one is malformed input.
fn query_difficulty(text: Option<&str>) -> Result<Option<Difficulty>, ApiError> {
    text.map(|t| t.parse().map_err(ApiError::BadRequest))
        .transpose()
}

/// 400 when both bounds of `<name>_min` / `<name>_max` are given and cross.
fn ordered<T: PartialOrd + std::fmt::Display>(
    name: &str,
    min: Option<T>,
    max: Option<T>,
) -> Result<(), ApiError> {
    match (min, max) {
        (Some(min), Some(max)) if min > max => Err(ApiError::BadRequest(format!(
            "`{name}_min` ({min}) is above `{name}_max` ({max})"
        ))),
        _ => Ok(()),
    }
}

fn browse_request(state: &AppState, q: &BrowseQuery) -> Result<Browse, ApiError> {
    let game = params::game(q.game.as_deref(), state.default_game)?;
    let limit = q.limit.unwrap_or(BROWSE_DEFAULT_LIMIT);
    if !(1..=BROWSE_MAX_LIMIT).contains(&limit) {
        return Err(ApiError::BadRequest(format!(
            "`limit` must be 1 to {BROWSE_MAX_LIMIT}, not {limit}"
        )));
    }
    ordered("par", q.par_min, q.par_max)?;
    for (name, bound) in [
        ("rating_min", q.rating_min),
        ("rating_max", q.rating_max),
        ("above_par_min", q.above_par_min),
        ("prior_gap_min", q.prior_gap_min),
    ] {
        if bound.is_some_and(|r| !r.is_finite()) {
            return Err(ApiError::BadRequest(format!(
                "`{name}` must be a finite number"
            )));
        }
    }
    ordered("rating", q.rating_min, q.rating_max)?;
    let sort = browse_sort(q.sort.as_deref())?;
    if sort == BrowseSort::PriorGap && q.after.is_some() {
        return Err(ApiError::BadRequest(
            "`sort=prior_gap` is one page, the levels farthest from their prior: it takes no `after`"
                .into(),
        ));
    }
    let after = q
        .after
        .as_deref()
        .map(Cursor::parse)
        .transpose()
        .map_err(ApiError::BadRequest)?;
    Ok(Browse {
        game: game.name(),
        difficulty: query_difficulty(q.difficulty.as_deref())?,
        par_min: q.par_min,
        par_max: q.par_max,
        rating_min: q.rating_min,
        rating_max: q.rating_max,
        above_par_min: q.above_par_min,
        prior_gap_min: q.prior_gap_min,
        sort,
        limit,
        after,
    })
}

fn browse_sort(text: Option<&str>) -> Result<BrowseSort, ApiError> {
    match text {
        None | Some("par") => Ok(BrowseSort::Par),
        Some("prior_gap") => Ok(BrowseSort::PriorGap),
        Some(other) => Err(ApiError::BadRequest(format!(
            "`sort` is `par` or `prior_gap`, not `{other}`"
        ))),
    }
}

/// The URL of the page after `cursor`, with the same filters.
fn next_link(request: &Browse, cursor: Cursor) -> String {
    let mut link = format!("/levels?game={}", request.game);
    if let Some(d) = request.difficulty {
        link += &format!("&difficulty={d}");
    }
    if let Some(min) = request.par_min {
        link += &format!("&par_min={min}");
    }
    if let Some(max) = request.par_max {
        link += &format!("&par_max={max}");
    }
    if let Some(min) = request.rating_min {
        link += &format!("&rating_min={min}");
    }
    if let Some(max) = request.rating_max {
        link += &format!("&rating_max={max}");
    }
    if let Some(min) = request.above_par_min {
        link += &format!("&above_par_min={min}");
    }
    if let Some(min) = request.prior_gap_min {
        link += &format!("&prior_gap_min={min}");
    }
    link + &format!("&limit={}&after={cursor}", request.limit)
}

fn with_links(summary: &LevelSummary) -> Value {
    let mut value = json!(summary);
    let path = format!("/levels/{}/{}", summary.difficulty, summary.seed);
    value["links"] = json!({
        "level": format!("{path}?game={}", summary.game),
        "preview": format!("{path}/preview.svg?game={}", summary.game),
    });
    value
}

/// `GET /levels`: one page of summaries in (par, seed, difficulty) order.
pub async fn browse(
    State(state): State<AppState>,
    query: BrowseQuery,
) -> Result<Json<Value>, ApiError> {
    let request = browse_request(&state, &query)?;
    // One row more than asked tells whether another page exists.
    let mut rows = state
        .levels
        .browse(&Browse {
            limit: request.limit + 1,
            ..request.clone()
        })
        .await?;
    let more = rows.len() > request.limit as usize;
    rows.truncate(request.limit as usize);
    let next = rows
        .last()
        .filter(|_| more && request.sort == BrowseSort::Par)
        .and_then(LevelSummary::cursor)
        .map(|cursor| next_link(&request, cursor));
    let levels: Vec<Value> = rows.iter().map(with_links).collect();
    Ok(Json(json!({ "levels": levels, "next": next })))
}

#[derive(Debug, Default, Deserialize, FromRequestParts)]
#[from_request(via(Query), rejection(ApiError))]
pub struct StatsQuery {
    pub game: Option<String>,
    pub difficulty: Option<String>,
    pub format: Option<String>,
    pub since: Option<String>,
    pub until: Option<String>,
}

/// Days from `since` when `until` is not given, or back from `until` without `since`.
pub const TREND_DAYS: i64 = 30;
pub const STATS_MAX_DAYS: i64 = 366;

fn query_day(name: &str, text: Option<&str>) -> Result<Option<Date>, ApiError> {
    text.map(|t| {
        Day::parse(t)
            .ok()
            .and_then(|day| day.iso().parse::<Date>().ok())
            .ok_or_else(|| {
                ApiError::BadRequest(format!(
                    "`{name}` must be a real day YYYY-MM-DD from 1970-01-01, not `{t}`"
                ))
            })
    })
    .transpose()
}

/// `date` moved by `days` (clamped to the calendar's range).
fn shifted(date: Date, days: i64) -> Date {
    date.checked_add(Span::new().days(days)).unwrap_or(date)
}

/// The days `since`/`until` name, if either: one alone extends to the other side by
/// [`TREND_DAYS`] days at most (and `until` not past today).
fn stats_days(q: &StatsQuery) -> Result<Option<DayRange>, ApiError> {
    let since = query_day("since", q.since.as_deref())?;
    let until = query_day("until", q.until.as_deref())?;
    let span = TREND_DAYS - 1;
    let (first, last) = match (since, until) {
        (Some(s), Some(u)) => (s, u),
        (Some(s), None) => {
            let today = TimeZone::UTC.to_datetime(Timestamp::now()).date();
            (s, shifted(s, span).min(today.max(s)))
        }
        (None, Some(u)) => (shifted(u, -span), u),
        (None, None) => return Ok(None),
    };
    if first > last {
        return Err(ApiError::BadRequest(format!(
            "`since` ({first}) is after `until` ({last})"
        )));
    }
    let days = first
        .until(last)
        .map_or(i64::MAX, |span| i64::from(span.get_days()));
    if days >= STATS_MAX_DAYS {
        return Err(ApiError::BadRequest(format!(
            "`since` to `until` spans at most {STATS_MAX_DAYS} days"
        )));
    }
    Ok(Some(DayRange {
        first: first.to_string(),
        last: last.to_string(),
    }))
}

/// `GET /stats`: one group per (game, difficulty) with stored levels, as JSON or CSV,
/// from the rollups (its cost does not grow with the stored rows).
pub async fn stats(State(state): State<AppState>, q: StatsQuery) -> Result<Response, ApiError> {
    let csv = match q.format.as_deref() {
        None | Some("json") => false,
        Some("csv") => true,
        Some(other) => {
            return Err(ApiError::BadRequest(format!(
                "`format` must be json or csv, not `{other}`"
            )));
        }
    };
    let game = match q.game.as_deref() {
        None => None,
        named => Some(params::game(named, state.default_game)?.name()),
    };
    let days = stats_days(&q)?;
    let filter = StatsFilter {
        game,
        difficulty: query_difficulty(q.difficulty.as_deref())?,
        key_metrics: |game| registry::find(game).map_or(&[], |g| g.key_metrics()),
        days,
    };
    let groups = state.levels.stats(&filter).await?;
    if csv {
        let headers = [(header::CONTENT_TYPE, "text/csv; charset=utf-8")];
        return Ok((headers, stats_csv(&groups)).into_response());
    }
    Ok(Json(json!({ "groups": groups })).into_response())
}

const CSV_HEADER: &str = "game,difficulty,levels,candidates,acceptance_rate,par_mean,par_p50,par_p95,par_p99,\
generate_ms_p50,generate_ms_p95,generate_ms_p99,solve_ms_p50,solve_ms_p95,solve_ms_p99,\
states_mean,states_max,solutions_unique,solutions_multiple,solutions_max,\
rated_levels,rating_mean,rating_min,rating_max,plays,plays_won,solve_rate,moves_over_par_mean,time_to_solve_ms_p50";

fn cell<T: ToString>(value: Option<T>) -> String {
    value.map(|v| v.to_string()).unwrap_or_default()
}

fn percentile_cells(p: &Percentiles) -> [String; 3] {
    [cell(p.p50), cell(p.p95), cell(p.p99)]
}

/// One line per group; the par histogram and the trend are JSON-only. The games' key metrics follow
/// as `<name>_mean` columns, one per name in any group (empty where a game has none).
/// Names are games', tiers' and metrics' own (lowercase ASCII), so no cell needs quoting.
fn stats_csv(groups: &[GroupStats]) -> String {
    let mut metric_names: Vec<&str> = Vec::new();
    for name in groups.iter().flat_map(|g| g.metrics.keys()) {
        if !metric_names.contains(name) {
            metric_names.push(name);
        }
    }
    let mut out = CSV_HEADER.to_string();
    for name in &metric_names {
        out += &format!(",{name}_mean");
    }
    out.push('\n');
    for g in groups {
        let mut cells = vec![
            g.game.clone(),
            g.difficulty.clone(),
            g.levels.to_string(),
            g.candidates.to_string(),
            cell(g.acceptance_rate),
            cell(g.par.mean),
        ];
        cells.extend(percentile_cells(&g.par.percentiles));
        cells.extend(percentile_cells(&g.generate_ms));
        cells.extend(percentile_cells(&g.solve_ms));
        cells.extend([
            cell(g.states.mean),
            cell(g.states.max),
            g.solution_count.unique.to_string(),
            g.solution_count.multiple.to_string(),
            cell(g.solution_count.max),
            g.ratings.rated_levels.to_string(),
            cell(g.ratings.mean),
            cell(g.ratings.min),
            cell(g.ratings.max),
            g.plays.count.to_string(),
            g.plays.won.to_string(),
            cell(g.plays.solve_rate),
            cell(g.plays.moves_over_par_mean),
            cell(g.plays.time_to_solve_ms_p50),
        ]);
        cells.extend(
            metric_names
                .iter()
                .map(|name| cell(g.metrics.get(name).and_then(|m| m.mean))),
        );
        out += &cells.join(",");
        out.push('\n');
    }
    out
}
