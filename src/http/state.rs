//! What every handler is given: the services and the HTTP settings.

use std::sync::Arc;

use anyhow::Context;
use levelforge_games::{Game, registry};

use super::session::SessionSettings;
use crate::config::{HttpArgs, ServeArgs};
use crate::metrics;
use crate::service::collections::CollectionService;
use crate::service::credentials::Authenticator;
use crate::service::levels::LevelService;
use crate::service::next::PlayerLocks;
use crate::service::ratelimit::Limiters;
use crate::service::store;

/// Everything a handler needs.
#[derive(Clone)]
pub struct AppState {
    pub levels: LevelService,
    pub default_game: &'static dyn Game,
    /// States one `POST /verify` may expand.
    pub verify_max_states: u64,
    /// Per-client limits on the costly routes.
    pub limiters: Limiters,
    /// One `next` at a time per player (per replica).
    pub next_locks: Arc<PlayerLocks>,
    /// Published collection versions in memory.
    pub collections: CollectionService,
    /// Resolves player tokens, keys and sessions.
    pub auth: Arc<Authenticator>,
    pub session: SessionSettings,
    /// Origins allowed to call the game routes from a browser; empty: none.
    pub cors_origins: Vec<String>,
    /// The connections' and the overload guard's settings.
    pub limits: HttpArgs,
    /// Whether `X-Forwarded-For` names the client (behind a trusted proxy only).
    pub trust_forwarded: bool,
    /// Whether `GET /bench/bytes/{size}` is mounted (load tests only).
    pub bench_routes: bool,
}

impl AppState {
    /// Connects the store (retrying while the database starts up) and builds the services.
    pub async fn new(args: &ServeArgs) -> anyhow::Result<AppState> {
        // Installed before the first request so that no early series is lost.
        metrics::handle();
        let named = &args.default_game.default_game;
        let default_game = registry::find(named).with_context(|| {
            format!(
                "DEFAULT_GAME `{named}` is not one of {}",
                registry::names().join(", ")
            )
        })?;
        let url = &args.database.database_url;
        let store = store::connect_with_retry(url, args.database.database_max_connections).await?;
        let store: Arc<dyn store::Store> =
            Arc::new(store::Guarded::new(store).checking_port(store::tcp_address(url)));
        Ok(AppState {
            auth: Authenticator::new(store.clone()),
            levels: LevelService::new(store, args.generation.bounds(), args.cache_capacity)
                .with_rate_limit(args.rate_limit.cold())
                .with_verify_concurrency(args.verify_concurrency as usize),
            default_game,
            verify_max_states: args.verify_budget.verify_max_states,
            limiters: args.rate_limit.limiters(),
            next_locks: Arc::default(),
            collections: CollectionService::default(),
            session: SessionSettings {
                secure: args.access.session_cookie_secure,
                lifetime_s: i64::from(args.access.session_hours) * 3600,
            },
            cors_origins: args.access.cors_allowed_origins.clone(),
            limits: args.http.clone(),
            trust_forwarded: args.rate_limit.trust_forwarded,
            bench_routes: args.bench_routes,
        })
    }
}
