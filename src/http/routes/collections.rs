//! Collections (docs/http.md): designers publish ordered levels of one game in versions
//! that never change; anyone reads them; a player sees which entries they have played.

use std::sync::LazyLock;

use axum::Json;
use axum::extract::{FromRequestParts, Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use levelforge_games::{Exhausted, Game, GameError};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::compression::{self, HeaderTemplates};
use crate::http::auth::Player;
use crate::http::params::{self, JsonBody};
use crate::http::problem::{self, ApiError};
use crate::http::state::AppState;
use crate::service::collections::{self, EntryDraft, EntryError};
use crate::service::levels::LevelError;
use crate::service::store::collections::ENTRIES_MAX;

/// Longest slug and title.
const SLUG_MAX: usize = 64;
const TITLE_MAX: usize = 120;

/// The latest version's manifest and the list: a client sees a new version within a minute.
static BRIEF: LazyLock<HeaderTemplates> =
    LazyLock::new(|| HeaderTemplates::new("application/json", "public, max-age=60"));

/// The body of `PUT /collections/{slug}`.
#[derive(Deserialize)]
pub struct PublishBody {
    title: String,
    game: String,
    entries: Vec<EntryBody>,
}

/// An entry: a key (`difficulty` and `seed`), or a hand-made `level` document.
#[derive(Deserialize)]
pub struct EntryBody {
    difficulty: Option<String>,
    /// A u64, as a number or a decimal string.
    seed: Option<Value>,
    level: Option<Value>,
}

/// `PUT /collections/{slug}`: proves every entry, then publishes the next version.
pub async fn publish(
    State(state): State<AppState>,
    Path(slug): Path<String>,
    JsonBody(body): JsonBody<PublishBody>,
) -> Result<Response, ApiError> {
    valid_slug(&slug)?;
    let title = body.title.trim();
    if title.is_empty() || title.chars().count() > TITLE_MAX || title.chars().any(char::is_control)
    {
        return Err(ApiError::BadRequest(format!(
            "`title` must be 1 to {TITLE_MAX} characters, none of them control characters"
        )));
    }
    let game = params::game(Some(body.game.as_str()), state.default_game)?;
    let drafts = drafts(game, body.entries)?;
    let proven = collections::prove_entries(&state.levels, game, drafts, state.verify_max_states)
        .await
        .map_err(entry_problem)?;
    let now = crate::service::credentials::now();
    let (version, manifest) =
        collections::publish(&state.levels, &slug, title, game, &proven, now).await?;
    Ok((
        StatusCode::CREATED,
        [
            (header::CONTENT_TYPE, "application/json".to_string()),
            (header::LOCATION, format!("/collections/{slug}/v/{version}")),
            (header::CACHE_CONTROL, "no-store".to_string()),
        ],
        manifest,
    )
        .into_response())
}

/// `DELETE /collections/{slug}`: off the list; its versions stay readable.
pub async fn unpublish(
    State(state): State<AppState>,
    Path(slug): Path<String>,
) -> Result<Response, ApiError> {
    if collections::unpublish(&state.levels, &slug).await? {
        Ok(StatusCode::NO_CONTENT.into_response())
    } else {
        Err(ApiError::NotFound(format!("no listed collection `{slug}`")))
    }
}

/// `GET /collections`: every listed collection's latest version.
pub async fn list(State(state): State<AppState>, headers: HeaderMap) -> Result<Response, ApiError> {
    let listed: Vec<Value> = collections::listed(&state.levels)
        .await?
        .into_iter()
        .map(|c| {
            json!({
                "slug": c.slug,
                "title": c.title,
                "game": c.game,
                "version": c.version,
                "size": c.size,
                "published_at": c.published_at,
                "href": format!("/collections/{}/v/{}", c.slug, c.version),
            })
        })
        .collect();
    let body = compression::Variants::new(json!({ "collections": listed }).to_string());
    Ok(compression::respond(&headers, &body, &BRIEF))
}

/// `GET /collections/{slug}`: the latest version's manifest, cached briefly.
pub async fn latest(
    State(state): State<AppState>,
    Path(slug): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let latest = collections::latest_version(&state.levels, &slug)
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no listed collection `{slug}`")))?;
    let manifest = state
        .collections
        .manifest(&state.levels, &slug, latest)
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no collection `{slug}`")))?;
    Ok(compression::respond(&headers, &manifest, &BRIEF))
}

/// `GET /collections/{slug}/v/{version}`: a published manifest, cacheable forever.
pub async fn version(
    State(state): State<AppState>,
    Path((slug, version)): Path<(String, String)>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let version = version_number(&version)?;
    let manifest = state
        .collections
        .manifest(&state.levels, &slug, version)
        .await?
        .ok_or_else(|| no_version(&slug, version))?;
    Ok(compression::respond(
        &headers,
        &manifest,
        &super::levels::JSON,
    ))
}

/// `GET /collections/{slug}/v/{version}/{n}`: the n-th level (1 first), as its own address
/// serves it.
pub async fn entry(
    State(state): State<AppState>,
    Path((slug, version, n)): Path<(String, String, String)>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let version = version_number(&version)?;
    let entries = state
        .collections
        .entries(&state.levels, &slug, version)
        .await?;
    if entries.is_empty() {
        return Err(no_version(&slug, version));
    }
    let entry = params::canonical::<u32>(&n)
        .ok()
        .map(|n| n as usize)
        .filter(|n| (1..=entries.len()).contains(n))
        .map(|n| &entries[n - 1])
        .ok_or_else(|| {
            ApiError::NotFound(format!(
                "entry `{n}` is not one of 1 to {} of this version",
                entries.len()
            ))
        })?;
    let (game, key) = collections::entry_key(entry)
        .ok_or_else(|| ApiError::Internal("a stored entry names no level of ours".into()))?;
    let level = state.levels.get(game, key).await?;
    Ok(super::levels::level_answer(&headers, &level))
}

/// `GET /players/me/collections/{slug}`: per entry of the latest version, whether this
/// player has played (and won) its level, and the first one they have not played.
pub async fn progress(
    State(state): State<AppState>,
    Path(slug): Path<String>,
    player: Player,
) -> Result<Response, ApiError> {
    let (version, entries) = collections::progress(&state.levels, &slug, &player.id)
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no listed collection `{slug}`")))?;
    let next = entries.iter().find(|e| !e.played).map(|e| e.entry.position);
    let entries: Vec<Value> = entries
        .iter()
        .map(|e| {
            json!({
                "n": e.entry.position,
                "difficulty": e.entry.difficulty,
                "seed": e.entry.seed,
                "played": e.played,
                "won": e.won,
            })
        })
        .collect();
    let href = |n: u32| format!("/collections/{slug}/v/{version}/{n}");
    Ok((
        [(header::CACHE_CONTROL, "no-store")],
        Json(json!({
            "slug": slug,
            "version": version,
            "entries": entries,
            "next": next,
            "next_href": next.map(href),
        })),
    )
        .into_response())
}

/// 400 unless the slug is 1 to 64 of `a-z`, `0-9` and `-`, starting with a letter or digit.
fn valid_slug(slug: &str) -> Result<(), ApiError> {
    let ok = (1..=SLUG_MAX).contains(&slug.len())
        && slug
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !slug.starts_with('-');
    if ok {
        return Ok(());
    }
    Err(ApiError::BadRequest(format!(
        "a slug is 1 to {SLUG_MAX} of a-z, 0-9 and `-`, not starting with `-`"
    )))
}

fn version_number(text: &str) -> Result<u32, ApiError> {
    params::canonical::<u32>(text)
        .ok()
        .filter(|&v| v >= 1)
        .ok_or_else(|| ApiError::NotFound(format!("`{text}` is not a version number")))
}

fn no_version(slug: &str, version: u32) -> ApiError {
    ApiError::NotFound(format!("collection `{slug}` has no version {version}"))
}

/// The entries to prove, in order: 400 naming the first that is neither a key nor a
/// level of the collection's game.
fn drafts(game: &dyn Game, entries: Vec<EntryBody>) -> Result<Vec<EntryDraft>, ApiError> {
    if !(1..=ENTRIES_MAX).contains(&entries.len()) {
        return Err(ApiError::BadRequest(format!(
            "`entries` must hold 1 to {ENTRIES_MAX} entries, not {}",
            entries.len()
        )));
    }
    let mut drafts = Vec::with_capacity(entries.len());
    for (i, entry) in entries.into_iter().enumerate() {
        let n = i + 1;
        let refuse = |why: String| ApiError::BadRequest(format!("entry {n}: {why}"));
        let draft = match (entry.level, entry.difficulty, entry.seed) {
            (Some(level), None, None) => {
                let named = level.get("game").and_then(Value::as_str);
                if named.is_some_and(|named| named != game.name()) {
                    return Err(refuse(format!(
                        "the level is not a {} level, the collection's game",
                        game.name()
                    )));
                }
                EntryDraft::Level(level)
            }
            (None, Some(difficulty), Some(seed)) => {
                let difficulty = difficulty.parse().map_err(refuse)?;
                let seed = match seed {
                    Value::Number(number) => number.to_string(),
                    Value::String(text) => text,
                    _ => return Err(refuse("`seed` must be a number or a string".into())),
                };
                let seed = params::seed(&seed).map_err(|_| refuse("`seed` is not a u64".into()))?;
                EntryDraft::Key(difficulty, seed)
            }
            _ => {
                return Err(refuse(
                    "give either `level`, or `difficulty` and `seed`".into(),
                ));
            }
        };
        drafts.push(draft);
    }
    Ok(drafts)
}

/// The problem an entry that refuses its version makes: 422 naming it and the rule.
fn entry_problem(error: EntryError) -> ApiError {
    let unprocessable = |n: usize, detail: String, rule: &'static str| ApiError::Unprocessable {
        detail: format!("entry {n}: {detail}"),
        rule,
    };
    match error {
        EntryError::Game(n, GameError::Malformed(detail)) => {
            ApiError::BadRequest(format!("entry {n}: {detail}"))
        }
        EntryError::Game(n, GameError::Rule(rule)) => unprocessable(n, rule.message, rule.rule),
        EntryError::Game(n, GameError::GaveUp(Exhausted::States(states))) => unprocessable(
            n,
            format!("the solver could not prove the level within {states} states"),
            problem::COLLECTION_ENTRY_UNPROVEN,
        ),
        EntryError::Game(_, other) => other.into(),
        EntryError::Level(n, LevelError::NotFound | LevelError::Failed(_)) => unprocessable(
            n,
            "no level has this key".into(),
            problem::COLLECTION_ENTRY_NO_LEVEL,
        ),
        EntryError::Level(_, other) => other.into(),
        EntryError::Collision(n) => unprocessable(
            n,
            "another level is stored at this level's content hash".into(),
            problem::COLLECTION_ENTRY_COLLISION,
        ),
        EntryError::Store(error) => error.into(),
    }
}

/// The query of the collection statistics: a version (the latest listed one by default)
/// and the margin, in rating points, past which an entry that plays harder than a later
/// one is flagged.
#[derive(Debug, Default, Deserialize, FromRequestParts)]
#[from_request(via(Query), rejection(ApiError))]
pub struct StatsQuery {
    #[serde(default, deserialize_with = "params::canonical_param")]
    version: Option<u32>,
    #[serde(default, deserialize_with = "params::canonical_param")]
    margin: Option<u32>,
}

/// The margin when none is asked for: a third of the gap between adjacent tiers' priors
/// is a little over this; less than it is noise for levels with few plays.
const MARGIN_DEFAULT: u32 = 100;

/// The entries' statistics of the version asked for, the margin, and which entries play
/// harder than a later one by more than it: what both the table and the curve show.
async fn flagged_entries(
    state: &AppState,
    slug: &str,
    query: &StatsQuery,
) -> Result<(u32, u32, Vec<crate::service::store::EntryStats>, Vec<bool>), ApiError> {
    let (version, entries) = entry_stats(state, slug, query).await?;
    let margin = query.margin.unwrap_or(MARGIN_DEFAULT);
    let ratings: Vec<f64> = entries.iter().map(|e| e.rating).collect();
    let flags = collections::harder_than_a_later_one(&ratings, f64::from(margin));
    Ok((version, margin, entries, flags))
}

/// `GET /stats/collections/{slug}`: how each entry plays, in order, with the flag.
pub async fn stats(
    State(state): State<AppState>,
    Path(slug): Path<String>,
    query: StatsQuery,
) -> Result<Response, ApiError> {
    let (version, margin, entries, flags) = flagged_entries(&state, &slug, &query).await?;
    let entries: Vec<Value> = entries
        .iter()
        .zip(flags)
        .map(|(e, flagged)| {
            let ratio = |part: i64, whole: i64| (whole > 0).then(|| part as f64 / whole as f64);
            json!({
                "n": e.entry.position,
                "difficulty": e.entry.difficulty,
                "seed": e.entry.seed,
                "par": e.par,
                "plays": e.plays,
                "won": e.won,
                "solve_rate": ratio(e.won, e.plays),
                "moves_over_par_mean": ratio(e.won_moves_over_par, e.won),
                "rating": crate::service::rating::tenths(e.rating),
                "rated_plays": e.rated_plays,
                "prior_rating": e.prior_rating.map(crate::service::rating::tenths),
                "harder_than_a_later_entry": flagged,
            })
        })
        .collect();
    Ok(Json(json!({
        "slug": slug,
        "version": version,
        "margin": margin,
        "entries": entries,
    }))
    .into_response())
}

/// `GET /stats/collections/{slug}/curve.svg`: each entry's rating in collection order,
/// flagged entries red.
pub async fn curve(
    State(state): State<AppState>,
    Path(slug): Path<String>,
    query: StatsQuery,
) -> Result<Response, ApiError> {
    let (version, margin, entries, flags) = flagged_entries(&state, &slug, &query).await?;
    let points: Vec<_> = entries
        .iter()
        .zip(flags)
        .map(
            |(e, flagged)| crate::service::difficulty_chart::CurvePoint {
                rating: e.rating,
                flagged,
            },
        )
        .collect();
    let title = format!("{slug} v{version}: rating by entry (margin {margin})");
    let svg = crate::service::difficulty_chart::collection_curve(&title, &points);
    Ok(([(header::CONTENT_TYPE, "image/svg+xml")], svg).into_response())
}

async fn entry_stats(
    state: &AppState,
    slug: &str,
    query: &StatsQuery,
) -> Result<(u32, Vec<crate::service::store::EntryStats>), ApiError> {
    let version = match query.version {
        Some(version) => version,
        None => collections::latest_version(&state.levels, slug)
            .await?
            .ok_or_else(|| ApiError::NotFound(format!("no listed collection `{slug}`")))?,
    };
    let entries = collections::entry_stats(&state.levels, slug, version).await?;
    if entries.is_empty() {
        return Err(no_version(slug, version));
    }
    Ok((version, entries))
}
