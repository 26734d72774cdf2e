//! `levelforge serve`: the app state, the public and the ops listeners, the first-run
//! key, and a graceful shutdown on SIGTERM or SIGINT.

use std::net::SocketAddr;

use tokio::net::TcpListener;

use crate::config::{self, ServeArgs};
use crate::http::app::App;
use crate::http::router;
use crate::http::state::AppState;
use crate::telemetry;

/// Runs the server with `args` until SIGTERM or SIGINT, then finishes in-flight requests.
pub async fn run(args: ServeArgs) -> anyhow::Result<()> {
    telemetry::init_logging(args.log.log_format);
    args.allocator.apply()?;
    let state = AppState::new(&args).await?;
    let listener = TcpListener::bind(args.bind).await?;
    let admin_bind = args.admin.admin_bind;
    let admin = TcpListener::bind(admin_bind)
        .await
        .map_err(|e| anyhow::anyhow!("ADMIN_BIND {admin_bind}: {e}"))?;
    first_run_key(&state, args.access.first_run_key, args.bind).await?;
    tracing::info!(bind = %args.bind, admin_bind = %admin_bind, default_game = state.default_game.name(), "levelforge listening");
    let (stop, stopped) = tokio::sync::watch::channel(());
    let mut admin_stopped = stopped.clone();
    let admin = tokio::spawn(serve_admin(admin, state.clone(), async move {
        let _ = admin_stopped.changed().await;
    }));
    serve(listener, state, async move {
        shutdown_signal().await;
        let _ = stop.send(());
    })
    .await?;
    admin.await?
}

/// Serves on `listener` until `shutdown` resolves, then finishes in-flight requests.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let limits = state.limits.clone();
    super::server::serve_connections(listener, App::new(state), &limits, shutdown).await
}

/// Serves the ops routes (`/metrics`, `/healthz`, `/readyz`) on `listener` until
/// `shutdown` resolves: a plain server of its own, outside the public listener's
/// connection caps and overload guard, so probes answer while the public port is full.
pub async fn serve_admin(
    listener: TcpListener,
    state: AppState,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    axum::serve(listener, router::admin_router(state))
        .with_graceful_shutdown(shutdown)
        .await?;
    Ok(())
}

/// With no live key in the store, makes a designer key named `first-run` and prints a
/// sign-in link to standard error (not to the log), once: see `FirstRunKey`.
async fn first_run_key(
    state: &AppState,
    policy: config::FirstRunKey,
    public: SocketAddr,
) -> anyhow::Result<()> {
    use std::io::IsTerminal;
    if state.auth.any_live_key().await? {
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
    let key = state.auth.first_run_key().await?;
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
async fn shutdown_signal() {
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
