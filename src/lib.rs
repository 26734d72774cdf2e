//! levelforge: seeded puzzle levels, proven by solvers, stored, and served over HTTP.
//!
//! - `levelforge-games` (the `games/` crate): the games, pure and synchronous.
//! - [`levels`]: cache → store → bounded generation.
//! - [`store`]: PostgreSQL / SQLite persistence.
//! - [`api`]: the HTTP routes; [`contract`]: the generated schemas of openapi.yaml.

pub mod allocator;
pub mod api;
pub mod auth;
pub mod bench;
pub mod cli;
pub mod collections;
pub mod compression;
pub mod config;
pub mod contract;
pub mod copy_store;
pub mod difficulty_chart;
pub mod levels;
pub mod metrics;
pub mod next;
pub mod ratelimit;
pub use levelforge_store::rating;
pub mod calibrate;
pub mod server;
pub mod simulate;
pub mod stats_bench;
pub mod store;
pub mod telemetry;

use std::sync::Arc;

use anyhow::Context;
use levelforge_games::registry;
use tokio::net::TcpListener;

use crate::api::AppState;
use crate::config::ServeArgs;
use crate::levels::LevelService;

/// Connects the store (retrying while the database starts up) and builds the app state.
pub async fn app_state(args: &ServeArgs) -> anyhow::Result<AppState> {
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
    let auth = auth::Authenticator::new(store.clone());
    Ok(AppState {
        levels: LevelService::new(store, args.generation.bounds(), args.cache_capacity)
            .with_rate_limit(ratelimit::RateLimiter::new(
                args.rate_limit.rate_limit_cold_per_min,
                args.rate_limit.rate_limit_cold_burst,
            ))
            .with_verify_concurrency(args.verify_concurrency as usize),
        default_game,
        verify_max_states: args.verify_budget.verify_max_states,
        verify_limiter: ratelimit::RateLimiter::new(
            args.rate_limit.rate_limit_verify_per_min,
            args.rate_limit.rate_limit_verify_burst,
        )
        .map(Arc::new),
        play_limiter: ratelimit::RateLimiter::new(
            args.rate_limit.rate_limit_plays_per_min,
            args.rate_limit.rate_limit_plays_burst,
        )
        .map(Arc::new),
        hint_limiter: ratelimit::RateLimiter::new(
            args.rate_limit.rate_limit_hints_per_min,
            args.rate_limit.rate_limit_hints_burst,
        )
        .map(Arc::new),
        players_limiter: ratelimit::RateLimiter::new(
            args.rate_limit.rate_limit_players_per_min,
            args.rate_limit.rate_limit_players_burst,
        )
        .map(Arc::new),
        players_network_limiter: ratelimit::RateLimiter::per_network(
            args.rate_limit.rate_limit_players_per_network_per_min,
            args.rate_limit.rate_limit_players_per_network_burst,
        )
        .map(Arc::new),
        next_locks: Arc::default(),
        collections: Default::default(),
        auth,
        session: api::session::SessionSettings {
            secure: args.access.session_cookie_secure,
            lifetime_s: i64::from(args.access.session_hours) * 3600,
        },
        cors_origins: args.access.cors_allowed_origins.clone(),
        limits: args.http.limits(),
        trust_forwarded: args.rate_limit.trust_forwarded,
        bench_routes: args.bench_routes,
    })
}

/// Serves on `listener` until `shutdown` resolves, then finishes in-flight requests.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let limits = state.limits.clone();
    server::serve(listener, api::App::new(state), &limits, shutdown).await
}

/// Serves the ops routes (`/metrics`, `/healthz`, `/readyz`) on `listener` until
/// `shutdown` resolves: a plain server of its own, outside the public listener's
/// connection caps and overload guard, so probes answer while the public port is full.
pub async fn serve_admin(
    listener: TcpListener,
    state: AppState,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    axum::serve(listener, api::admin_router(state))
        .with_graceful_shutdown(shutdown)
        .await?;
    Ok(())
}

/// With no live key in the store, makes a designer key named `first-run` and prints a
/// sign-in link to standard error (not to the log), once: see `FirstRunKey`.
pub async fn first_run_key(
    state: &AppState,
    policy: config::FirstRunKey,
    public: std::net::SocketAddr,
) -> anyhow::Result<()> {
    use std::io::IsTerminal;
    let store = state.auth.store();
    if store.live_key_count(auth::now()).await? > 0 {
        return Ok(());
    }
    let make = match policy {
        config::FirstRunKey::Always => true,
        config::FirstRunKey::Never => false,
        config::FirstRunKey::Auto => std::io::stderr().is_terminal(),
    };
    if !make {
        tracing::warn!(
            "no live key: designer routes and the dashboard refuse everyone until \
             `levelforge keys create --role designer --name NAME`"
        );
        return Ok(());
    }
    let key = cli::new_key(store.as_ref(), config::KeyRole::Designer, "first-run", None).await?;
    let address = if public.ip().is_unspecified() {
        format!("localhost:{}", public.port())
    } else {
        public.to_string()
    };
    eprintln!(
        "\nNo key existed, so levelforge made the designer key `first-run` (shown only now).\n\
         Sign in to the dashboard: http://{address}/#key={}\n\
         Revoke it with `levelforge keys revoke first-run`; list keys with `levelforge keys list`.\n",
        key.token
    );
    Ok(())
}

/// Resolves on SIGTERM or SIGINT.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        if let Ok(mut signal) =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        {
            signal.recv().await;
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
    tracing::info!("shutting down: finishing in-flight requests");
}
