//! The accept loop. `axum::serve` builds hyper connections without a timer, so hyper's
//! header read timeout cannot take effect there; this loop builds them itself: HTTP/1.1
//! with keep-alive, a deadline for each request head, the peer address for the rate
//! limiter, and graceful shutdown.

use std::future::Future;
use std::io;
use std::time::Duration;

use axum::Router;
use axum::extract::{ConnectInfo, Request};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tower::ServiceExt;

/// Serves `app` on `listener` until `shutdown` resolves: then stops accepting, lets every
/// open connection finish its request in flight (no new ones on kept-alive connections),
/// and returns when all are closed.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    header_read_timeout: Duration,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let mut http = http1::Builder::new();
    // Without a timer hyper ignores the header read timeout.
    http.timer(TokioTimer::new())
        .header_read_timeout(header_read_timeout)
        .keep_alive(true);
    let connections = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    after_accept_error(error).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let service = TowerToHyperService::new(app.clone().map_request(
            move |mut request: Request<Incoming>| {
                request.extensions_mut().insert(ConnectInfo(peer));
                request
            },
        ));
        let connection = connections.watch(http.serve_connection(TokioIo::new(stream), service));
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                // Clients hanging up and header timeouts end up here; neither is ours.
                tracing::debug!(%peer, "connection ended: {error}");
            }
        });
    }
    drop(listener);
    connections.shutdown().await;
    Ok(())
}

/// A failed accept must not end the server. Errors of one connection are skipped at once;
/// others (typically out of file descriptors) wait a second so that the loop does not spin
/// while connections close.
async fn after_accept_error(error: io::Error) {
    use io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    if matches!(
        error.kind(),
        ConnectionAborted | ConnectionRefused | ConnectionReset
    ) {
        return;
    }
    tracing::error!("accept failed: {error}");
    tokio::time::sleep(Duration::from_secs(1)).await;
}
