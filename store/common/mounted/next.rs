//! The next level for a player: candidates near a rating, and the record of what was
//! served. Compiled into each backend crate around its own `queries/next/`.

use levelforge_store::rating::Rating;
use levelforge_store::{
    LevelKey, NextCandidate, NextQuery, StoreError, seed_from_column, seed_to_column,
};
use levelforge_store_common::Dialect;

struct CandidateRow {
    difficulty: String,
    seed: i64,
    rating: f64,
    rating_deviation: f64,
}

impl crate::Backend {
    pub(crate) async fn player_rating(
        &self,
        id: &str,
        game: &str,
    ) -> Result<Option<Rating>, StoreError> {
        let row = sqlx::query_file!("queries/next/player_rating.sql", game, id)
            .fetch_optional(self.pool())
            .await?;
        Ok(row.map(|r| Rating {
            rating: r.rating,
            deviation: r.rating_deviation,
            volatility: r.rating_volatility,
        }))
    }

    pub(crate) async fn next_candidates(
        &self,
        q: &NextQuery<'_>,
    ) -> Result<Vec<NextCandidate>, StoreError> {
        let rows = sqlx::query_file_as!(
            CandidateRow,
            "queries/next/candidates.sql",
            q.game,
            q.low,
            q.high,
            q.target,
            q.player,
            i64::from(q.limit),
        )
        .fetch_all(self.pool())
        .await?;
        Ok(rows
            .into_iter()
            .map(|r| NextCandidate {
                difficulty: r.difficulty,
                seed: seed_from_column(r.seed),
                rating: r.rating,
                deviation: r.rating_deviation,
            })
            .collect())
    }

    pub(crate) async fn mark_served(
        &self,
        player: &str,
        key: &LevelKey,
        now: i64,
    ) -> Result<bool, StoreError> {
        let inserted = sqlx::query_file!(
            "queries/next/mark_served.sql",
            player,
            key.game,
            key.difficulty.as_str(),
            seed_to_column(key.seed),
            now,
        )
        .execute(self.pool())
        .await;
        match inserted {
            Ok(done) if done.rows_affected() == 1 => Ok(true),
            // Taken or played, unless the player is gone.
            Ok(_) => match self.player_token_hash(player).await? {
                Some(_) => Ok(false),
                None => Err(StoreError::PlayerGone),
            },
            // Erased while this waited for the account (PostgreSQL's foreign key).
            Err(sqlx::Error::Database(db)) if db.is_foreign_key_violation() => {
                Err(StoreError::PlayerGone)
            }
            Err(error) => Err(error.into()),
        }
    }

    pub(crate) async fn level_rating(&self, key: &LevelKey) -> Result<Option<Rating>, StoreError> {
        let (tier, seed) = (key.difficulty.as_str(), seed_to_column(key.seed));
        let rating = sqlx::query_file_as!(
            Rating,
            "queries/next/level_rating.sql",
            key.game,
            tier,
            seed
        )
        .fetch_optional(self.pool())
        .await?;
        Ok(rating)
    }

    pub(crate) async fn served_count(&self, player: &str, game: &str) -> Result<i64, StoreError> {
        let served = sqlx::query_file_scalar!("queries/next/served_count.sql", player, game)
            .fetch_one(self.pool())
            .await?;
        Ok(served)
    }
}
