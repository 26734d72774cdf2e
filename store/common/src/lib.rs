//! What levelforge's two SQL backends share beyond the model of `levelforge-store`: the Rust
//! around their queries (`mounted/`), and the contract that Rust holds each backend to
//! ([`Dialect`]).
//!
//! `mounted/` is not compiled by this crate. Each backend crate compiles it as its own module
//! (`#[path]`), because every `query_file!` there, such as
//! `queries/levels/browse_page.sql`, must be read from that backend's `queries/` and checked
//! against that backend's schema and offline metadata (`.sqlx/`): one Rust text, two checked
//! dialects. What that code needs from the backend beyond its SQL files it asks through
//! [`Dialect`], so a backend that lacks a hook does not build.
//!
//! A [`Store`](levelforge_store::Store) method is an inherent method of the same name on the
//! backend's store, in `mounted/` where the Rust is shared and in the backend's `src/` where
//! it differs in more than SQL; [`impl_store!`] implements the trait from them.

use std::future::Future;

use levelforge_store::rating::RatedPlay;
use levelforge_store::{LevelKey, LevelSummary, Rollups, StoreError};
use sqlx::{Database, Pool, Transaction};

/// What the shared Rust (`mounted/`) asks of the backend that compiles it: its pool, and
/// the steps whose statements differ in more than their text. The backend's crate root
/// also names its store `Backend`, the type the shared code adds its methods to.
pub trait Dialect: Clone + Send + Sync + 'static {
    type Db: Database;

    fn pool(&self) -> &Pool<Self::Db>;
    /// Whether writes keep the rollup tables up to date.
    fn keeps_rollups(&self) -> bool;
    /// The same store without rollup upkeep: only for measuring its cost
    /// (`levelforge bench --stats`).
    fn rollups_off(&self) -> Self;

    /// A transaction that writes, ordered against concurrent writers the backend's way.
    fn begin_write(
        &self,
    ) -> impl Future<Output = Result<Transaction<'static, Self::Db>, StoreError>> + Send;
    /// A read-only transaction that sees one snapshot at every statement (copy-store).
    fn begin_snapshot(
        &self,
    ) -> impl Future<Output = Result<Transaction<'static, Self::Db>, StoreError>> + Send;
    /// What copy-store's import leaves to do once every batch is written.
    fn after_import(&self) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// Sets browse's `rating_above_par` from the par rollups of just the buckets on the page.
    fn with_par_ratings(
        &self,
        game: &str,
        page: &mut [LevelSummary],
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
    /// Saves a rated play's new player rating, and the level's when it moved.
    fn save_ratings(
        tx: &mut Transaction<'static, Self::Db>,
        key: &LevelKey,
        player: &str,
        after: &RatedPlay,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
    /// Adds `rollups` to the rollup tables, every row in `shard`.
    fn upsert_rollups(
        conn: &mut <Self::Db as Database>::Connection,
        rollups: &Rollups,
        shard: i64,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
}

/// Implements [`Store`](levelforge_store::Store) for a backend's store: each method is the
/// store's inherent method of the same name, `close` and `without_rollups` come from its
/// [`Dialect`]. A backend writes only its SQL and its hooks.
#[macro_export]
macro_rules! impl_store {
    ($backend:ident) => {
        use $crate::impl_store_methods;
        $crate::__private::with_store_methods!(impl_store_methods!($backend));
    };
}

/// The body of [`impl_store!`], given the method list of `levelforge_store::with_store_methods!`.
#[doc(hidden)]
#[macro_export]
macro_rules! impl_store_methods {
    ($backend:ident; $(
        fn $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty;
    )*) => {
        #[$crate::__private::async_trait]
        impl $crate::__private::Store for $backend {
            $(
                async fn $name(&self $(, $arg: $ty)*)
                    -> Result<$ret, $crate::__private::StoreError> {
                    self.$name($($arg),*).await
                }
            )*

            async fn close(&self) {
                $crate::Dialect::pool(self).close().await
            }

            fn without_rollups(&self) -> std::sync::Arc<dyn $crate::__private::Store> {
                std::sync::Arc::new($crate::Dialect::rollups_off(self))
            }
        }

        // Inside the impl, `Store` is in scope, so a method the backend lacks would call the
        // trait's own method again, for ever. Here it is not: each path finds only the
        // backend's inherent method, and one that is missing fails the build.
        mod store_methods_are_inherent {
            #[allow(dead_code)]
            fn every_method_is_written() {
                $(let _ = super::$backend::$name;)*
            }
        }
    };
}

#[doc(hidden)]
pub mod __private {
    pub use async_trait::async_trait;
    pub use levelforge_store::{Store, StoreError, with_store_methods};
}
