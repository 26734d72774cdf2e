//! Browse's `rating_above_par`: the par rollups of just the buckets on a page, asked for
//! in this backend's way of passing a list of pairs.

use levelforge_store::browse::{BucketRating, rated_buckets, set_par_ratings};
use levelforge_store::{LevelSummary, StoreError};
use sqlx::PgPool;

/// Sets `rating_above_par` from the par rollups of just the buckets on the page.
pub(crate) async fn with_par_ratings(
    pool: &PgPool,
    game: &str,
    page: &mut [LevelSummary],
) -> Result<(), StoreError> {
    let (tiers, pars): (Vec<String>, Vec<i32>) = rated_buckets(page)
        .into_iter()
        .map(|(tier, par)| (tier, par as i32))
        .unzip();
    if tiers.is_empty() {
        return Ok(());
    }
    let buckets = sqlx::query_as!(
        BucketRating,
        r#"SELECT difficulty, par::int8 AS "par!",
                SUM(rating_micros)::int8 AS "rating_micros!",
                SUM(rated_levels)::int8 AS "rated_levels!"
            FROM stats_pars
            WHERE game = $1
                AND (difficulty, par) IN (SELECT * FROM UNNEST($2::text[], $3::int4[]))
            GROUP BY difficulty, par"#,
        game,
        &tiers,
        &pars,
    )
    .fetch_all(pool)
    .await?;
    set_par_ratings(page, &buckets);
    Ok(())
}
