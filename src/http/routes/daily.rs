//! The level of the day and packs of consecutive seeds for offline play.

use axum::extract::{FromRequestParts, Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use jiff::Timestamp;
use jiff::civil::Date;
use jiff::tz::TimeZone;
use levelforge_games::{Difficulty, Game};
use serde::Deserialize;

use super::levels::JSON;
use crate::compression::respond;
use crate::http::params::{self, ClientIp};
use crate::http::problem::ApiError;
use crate::http::state::AppState;
use crate::service::levels::PackKey;
use crate::service::store::LevelKey;

/// A calendar day (UTC), from 1970-01-01 to 9999-12-31.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Day(Date);

impl Day {
    /// Strict `YYYY-MM-DD`, years 1970 to 9999, a day that exists.
    pub fn parse(text: &str) -> Result<Day, String> {
        let bad = || {
            format!(
                "`date` must be a real day YYYY-MM-DD from 1970-01-01 to 9999-12-31, not `{text}`"
            )
        };
        // The shape is checked here: ISO 8601 parsers also take other spellings.
        let b = text.as_bytes();
        let shape = b.len() == 10
            && b[4] == b'-'
            && b[7] == b'-'
            && b.iter()
                .enumerate()
                .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit());
        if !shape {
            return Err(bad());
        }
        let number = |range: std::ops::Range<usize>| text[range].parse::<i16>().map_err(|_| bad());
        let (year, month, day) = (number(0..4)?, number(5..7)?, number(8..10)?);
        let month = i8::try_from(month).map_err(|_| bad())?;
        let day = i8::try_from(day).map_err(|_| bad())?;
        // `Date::new` refuses a day that does not exist (2026-02-30).
        match Date::new(year, month, day) {
            Ok(date) if year >= 1970 => Ok(Day(date)),
            _ => Err(bad()),
        }
    }

    pub fn today() -> Day {
        Day(TimeZone::UTC.to_datetime(Timestamp::now()).date())
    }

    pub fn iso(self) -> String {
        self.0.to_string()
    }

    /// The daily key: seed = the date's digits YYYYMMDD as a number (2026-11-22 →
    /// 20261122); tier by ISO weekday: Monday easy, Tuesday medium, Wednesday hard,
    /// Thursday expert, Friday medium, Saturday hard, Sunday expert.
    pub fn key(self) -> (Difficulty, u64) {
        use Difficulty::{Easy, Expert, Hard, Medium};
        const BY_WEEKDAY: [Difficulty; 7] = [Easy, Medium, Hard, Expert, Medium, Hard, Expert];
        let date = self.0;
        let weekday = date.weekday().to_monday_zero_offset() as usize;
        let digits =
            i64::from(date.year()) * 10_000 + i64::from(date.month()) * 100 + i64::from(date.day());
        (BY_WEEKDAY[weekday], digits as u64)
    }
}

#[derive(Debug, Default, Deserialize, FromRequestParts)]
#[from_request(via(Query), rejection(ApiError))]
pub struct DailyQuery {
    pub game: Option<String>,
    pub date: Option<String>,
}

/// How long a client or cache may keep the redirect of an undated request.
const TODAY_MAX_AGE_S: u32 = 60;

/// `GET /levels/daily`: without `date`, a 307 to today's dated URL (cacheable for a
/// minute only); with one, that day's level, cacheable forever like any level.
pub async fn daily(
    State(state): State<AppState>,
    client: ClientIp,
    q: DailyQuery,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let game = params::game(q.game.as_deref(), state.default_game)?;
    let Some(date) = q.date else {
        return today_redirect(game);
    };
    let (difficulty, seed) = Day::parse(&date).map_err(ApiError::BadRequest)?.key();
    let key = LevelKey {
        game: game.name(),
        difficulty,
        seed,
    };
    let level = state.levels.get_for(game, key, client.0).await?;
    let mut response = respond(&headers, &level.body, &JSON);
    let canonical = format!("/levels/{difficulty}/{seed}?game={}", game.name());
    if let Ok(value) = HeaderValue::try_from(canonical) {
        response
            .headers_mut()
            .insert(header::CONTENT_LOCATION, value);
    }
    Ok(response)
}

/// The 307 of an undated daily request to today's dated URL, cacheable for a minute.
fn today_redirect(game: &dyn Game) -> Result<Response, ApiError> {
    let location = format!(
        "/levels/daily?game={}&date={}",
        game.name(),
        Day::today().iso()
    );
    let mut response = StatusCode::TEMPORARY_REDIRECT.into_response();
    let h = response.headers_mut();
    h.insert(
        header::LOCATION,
        HeaderValue::try_from(location).map_err(|e| ApiError::Internal(e.to_string()))?,
    );
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_str(&format!("public, max-age={TODAY_MAX_AGE_S}"))
            .map_err(|e| ApiError::Internal(e.to_string()))?,
    );
    Ok(response)
}

pub const PACK_MAX_COUNT: u64 = 100;
pub const PACK_DEFAULT_COUNT: u64 = 10;

#[derive(Debug, Default, Deserialize, FromRequestParts)]
#[from_request(via(Query), rejection(ApiError))]
pub struct PackQuery {
    pub game: Option<String>,
    pub from: Option<String>,
    #[serde(default, deserialize_with = "params::canonical_param")]
    pub count: Option<u64>,
}

fn pack_seeds(q: &PackQuery) -> Result<(u64, u64), ApiError> {
    let from = params::seed(
        q.from
            .as_deref()
            .ok_or_else(|| ApiError::BadRequest("`from` (the first seed) is required".into()))?,
    )?;
    let count = q.count.unwrap_or(PACK_DEFAULT_COUNT);
    if !(1..=PACK_MAX_COUNT).contains(&count) {
        return Err(ApiError::BadRequest(format!(
            "`count` must be 1 to {PACK_MAX_COUNT}, not {count}"
        )));
    }
    if from.checked_add(count - 1).is_none() {
        return Err(ApiError::BadRequest(
            "`from` + `count` - 1 is past the largest seed".into(),
        ));
    }
    Ok((from, count))
}

/// `GET /levels/{difficulty}?from=&count=`: a JSON array of the stored levels of seeds
/// from..from+count, each byte for byte as `GET /levels/{difficulty}/{seed}` serves it.
pub async fn pack(
    State(state): State<AppState>,
    Path(difficulty): Path<String>,
    client: ClientIp,
    q: PackQuery,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let game = params::game(q.game.as_deref(), state.default_game)?;
    let difficulty = params::difficulty(&difficulty)?;
    if !difficulty.is_generated() {
        return Err(ApiError::NotFound(
            "hand-made levels come in collections, not packs".into(),
        ));
    }
    let (from, count) = pack_seeds(&q)?;
    let key = PackKey {
        first: LevelKey {
            game: game.name(),
            difficulty,
            seed: from,
        },
        count,
    };
    let body = state.levels.pack(game, key, client.0).await?;
    Ok(respond(&headers, &body, &JSON))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_parse_strictly_and_round_trip() {
        assert_eq!(
            Day::parse("1970-01-01").map(Day::iso),
            Ok("1970-01-01".into())
        );
        assert_eq!(
            Day::parse("2024-02-29").map(Day::iso),
            Ok("2024-02-29".into())
        );
        assert_eq!(
            Day::parse("9999-12-31").map(Day::iso),
            Ok("9999-12-31".into())
        );
        for bad in [
            "",
            "2026-02-30",
            "2025-02-29",
            "2026-13-01",
            "2026-00-10",
            "1969-12-31",
            "2026-1-01",
            "+026-01-01",
            "2026/01/01",
            "2026-01-01x",
        ] {
            assert!(Day::parse(bad).is_err(), "{bad}");
        }
        // One reading of the clock: two could fall on either side of midnight.
        let today = Day::today();
        assert_eq!(Day::parse(&today.iso()), Ok(today));
    }

    #[test]
    fn daily_key_is_the_date_and_the_weekday_tier() {
        // 2026-11-22 is a Sunday; 2026-11-23 a Monday.
        assert_eq!(
            Day::parse("2026-11-22").unwrap().key(),
            (Difficulty::Expert, 20_261_122)
        );
        assert_eq!(
            Day::parse("2026-11-23").unwrap().key(),
            (Difficulty::Easy, 20_261_123)
        );
        assert_eq!(
            Day::parse("1970-01-01").unwrap().key(),
            (Difficulty::Expert, 19_700_101)
        );
    }
}
