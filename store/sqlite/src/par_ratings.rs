//! Browse's `rating_above_par`: the par rollups of just the buckets on a page, asked for
//! in this backend's way of passing a list of pairs.

use levelforge_store::browse::{BucketRating, rated_buckets, set_par_ratings};
use levelforge_store::{LevelSummary, StoreError};
use sqlx::SqlitePool;

/// Sets `rating_above_par` from the par rollups of just the buckets on the page.
pub(crate) async fn with_par_ratings(
    pool: &SqlitePool,
    game: &str,
    page: &mut [LevelSummary],
) -> Result<(), StoreError> {
    let wanted = rated_buckets(page);
    if wanted.is_empty() {
        return Ok(());
    }
    let wanted = serde_json::to_string(&wanted).expect("strings and integers serialize");
    let buckets = sqlx::query_as!(
        BucketRating,
        r#"SELECT difficulty AS "difficulty!", par AS "par!",
                SUM(rating_micros) AS "rating_micros!: i64",
                SUM(rated_levels) AS "rated_levels!: i64"
            FROM stats_pars
            WHERE game = ?1
                AND (difficulty, par) IN (SELECT value ->> 0, value ->> 1 FROM json_each(?2))
            GROUP BY difficulty, par"#,
        game,
        wanted,
    )
    .fetch_all(pool)
    .await?;
    set_par_ratings(page, &buckets);
    Ok(())
}
