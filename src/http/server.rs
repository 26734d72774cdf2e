//! The accept loop. `axum::serve` builds hyper connections without a timer, so hyper's
//! header read timeout cannot take effect there; this loop builds them itself: HTTP/1.1
//! with keep-alive, a deadline for each request head, a cap on the bytes a head may
//! buffer, a write timeout, caps on open connections (all and per peer), the peer address
//! for the rate limiters, and a graceful shutdown bounded by a grace period. Each
//! connection's warm requests are answered before hyper takes it (`warm_connection`).

use std::collections::HashMap;
use std::error::Error;
use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};
use tokio::task::JoinSet;
use tokio_io_timeout::TimeoutStream;

use crate::config::{HYPER_MAX_HEADERS, HttpArgs};
use crate::http::app::App;
use crate::http::warm_connection::{self, Ended, HeadLimits, Rewind};

/// Serves `app` on `listener` until `shutdown` resolves: then stops accepting, lets every
/// open connection finish its request in flight (no new ones on kept-alive connections)
/// for at most `HTTP_SHUTDOWN_GRACE_MS`, closes the rest and returns.
pub async fn serve_connections(
    listener: TcpListener,
    app: App,
    limits: &HttpArgs,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let mut http = http1::Builder::new();
    // Without a timer hyper ignores the header read timeout.
    http.timer(TokioTimer::new())
        .header_read_timeout(Duration::from_millis(limits.http_header_read_timeout_ms))
        .max_buf_size(limits.http_max_header_bytes as usize)
        .keep_alive(true);
    // Set only when not hyper's default: hyper then allocates the headers on the heap.
    if limits.http_max_headers != HYPER_MAX_HEADERS {
        http.max_headers(limits.http_max_headers as usize);
    }
    let head_limits = HeadLimits {
        read_timeout: Duration::from_millis(limits.http_header_read_timeout_ms),
        max_bytes: limits.http_max_header_bytes as usize,
        max_fields: limits.http_max_headers as usize,
    };
    let too_large: Arc<str> = head_too_large(limits).into();
    let open = OpenConnections::new(limits);
    // Changed once, at shutdown; closed when every connection has dropped its receiver.
    let (stopping, stop) = watch::channel(());
    let mut tasks = JoinSet::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        // Reap finished connection tasks so the set stays as small as the open connections.
        while tasks.try_join_next().is_some() {}
        let admitted = tokio::select! {
            admitted = open.accept(&listener) => admitted,
            () = &mut shutdown => break,
        };
        let Some((stream, peer, slot)) = admitted else {
            continue;
        };
        let mut stream = TimeoutStream::new(ProblemOnParseError::new(stream, too_large.clone()));
        // hyper has no write timeout: a client that stops reading would hold the
        // connection and its buffered answer forever.
        stream.set_write_timeout(Some(Duration::from_millis(limits.http_write_timeout_ms)));
        let connection = Connection {
            app: app.clone(),
            http: http.clone(),
            head_limits,
            stop: stop.clone(),
        };
        tasks.spawn(async move {
            let _slot = slot;
            if let Err(error) = connection.serve(Box::pin(stream), peer).await {
                // Clients hanging up and header or write timeouts end up here; none is ours.
                tracing::debug!(%peer, "connection ended: {error}");
            }
        });
    }
    drop(listener);
    drop(stop);
    close_all(
        stopping,
        tasks,
        Duration::from_millis(limits.http_shutdown_grace_ms),
    )
    .await;
    Ok(())
}

/// Tells every connection to finish (an idle one closes at once, a busy one after its
/// answer), waits for them for at most `grace`, then closes the rest.
async fn close_all(stopping: watch::Sender<()>, mut tasks: JoinSet<()>, grace: Duration) {
    let _ = stopping.send(());
    if tokio::time::timeout(grace, stopping.closed())
        .await
        .is_err()
    {
        tracing::warn!(
            open = tasks.len(),
            "shutdown grace over: closing the remaining connections"
        );
    }
    tasks.shutdown().await;
}

/// What one connection is served with.
struct Connection {
    app: App,
    http: http1::Builder,
    head_limits: HeadLimits,
    /// Changes when the server shuts down.
    stop: watch::Receiver<()>,
}

impl Connection {
    /// Warm requests first (`warm_connection`), then hyper from the first other request
    /// on; at shutdown an idle connection closes, a busy one after its answer.
    async fn serve<S>(
        mut self,
        mut stream: S,
        peer: SocketAddr,
    ) -> Result<(), Box<dyn Error + Send + Sync>>
    where
        S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let unread =
            match warm_connection::serve(&mut stream, &self.app, self.head_limits, &mut self.stop)
                .await?
            {
                Ended::Closed => return Ok(()),
                Ended::HandOff(unread) => unread,
            };
        let app = self.app;
        let service = hyper::service::service_fn(move |request| app.clone().call(request, peer));
        let io = TokioIo::new(Rewind::new(unread, stream));
        let mut connection = std::pin::pin!(self.http.serve_connection(io, service));
        tokio::select! {
            served = connection.as_mut() => served?,
            _ = self.stop.changed() => {
                connection.as_mut().graceful_shutdown();
                connection.await?;
            }
        }
        Ok(())
    }
}

/// The detail of a 431. hyper answers 431 for either cap on a request head and says not
/// which, so the answer names both; and the request line counts toward the bytes, so a
/// URL longer than the cap gets 431 too (hyper's 414 needs one over 65,534 bytes).
fn head_too_large(limits: &HttpArgs) -> String {
    format!(
        "the request head (the request line with its URL, and the header fields) is larger \
         than the server accepts: more than {} header fields (HTTP_MAX_HEADERS) or more than \
         {} bytes (HTTP_MAX_HEADER_BYTES)",
        limits.http_max_headers, limits.http_max_header_bytes
    )
}

/// The caps on open connections: all together (a semaphore: at the cap the loop stops
/// accepting and new connections wait in the listen backlog) and per peer address (a
/// count: one over the cap is closed at once, so one client cannot fill the server).
struct OpenConnections {
    all: Option<Arc<Semaphore>>,
    per_peer: usize,
    by_peer: ByPeer,
}

/// Open connections per peer address.
type ByPeer = Arc<Mutex<HashMap<IpAddr, usize>>>;

/// One open connection's place under both caps, given back when dropped.
struct ConnectionSlot {
    _all: Option<OwnedSemaphorePermit>,
    peer: Option<(IpAddr, ByPeer)>,
}

impl Drop for ConnectionSlot {
    fn drop(&mut self) {
        if let Some((ip, by_peer)) = &self.peer {
            let mut by_peer = by_peer.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(count) = by_peer.get_mut(ip) {
                *count -= 1;
                if *count == 0 {
                    by_peer.remove(ip);
                }
            }
        }
    }
}

impl OpenConnections {
    fn new(limits: &HttpArgs) -> OpenConnections {
        OpenConnections {
            all: (limits.http_max_connections > 0)
                .then(|| Arc::new(Semaphore::new(limits.http_max_connections))),
            per_peer: limits.http_max_connections_per_client,
            by_peer: Arc::default(),
        }
    }

    /// The next connection within both caps; `None` when one was refused or failed.
    async fn accept(
        &self,
        listener: &TcpListener,
    ) -> Option<(tokio::net::TcpStream, SocketAddr, ConnectionSlot)> {
        let all = match &self.all {
            Some(all) => Some(all.clone().acquire_owned().await.expect("never closed")),
            None => None,
        };
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(error) => {
                after_accept_error(error).await;
                return None;
            }
        };
        let mut slot = ConnectionSlot {
            _all: all,
            peer: None,
        };
        if self.per_peer > 0 {
            let mut by_peer = self.by_peer.lock().unwrap_or_else(|e| e.into_inner());
            let count = by_peer.entry(peer.ip()).or_insert(0);
            if *count >= self.per_peer {
                crate::metrics::refused("connections_per_client");
                return None; // `stream` drops: the connection closes at once
            }
            *count += 1;
            slot.peer = Some((peer.ip(), self.by_peer.clone()));
        }
        Some((stream, peer, slot))
    }
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

/// hyper answers a request head it cannot parse itself, before any route sees it: 400
/// (malformed request line or header, two `Content-Length`s, control bytes), 414 or 431,
/// with an empty body, and closes. It has no hook for that answer, so this writer swaps
/// it for a problem+json one. The app never sends these statuses without a body, so the
/// head alone identifies hyper's own answers.
struct ProblemOnParseError<T> {
    inner: T,
    /// A replacement answer and how much of it is written.
    pending: Option<(Vec<u8>, usize)>,
    /// The detail of a 431, which names the caps.
    too_large: Arc<str>,
}

impl<T> ProblemOnParseError<T> {
    fn new(inner: T, too_large: Arc<str>) -> Self {
        ProblemOnParseError {
            inner,
            pending: None,
            too_large,
        }
    }
}

/// The problem+json answer that replaces hyper's bodiless `head`, if it is one; a 431 says
/// `too_large`.
fn problem_for_hyper_error(head: &[u8], too_large: &str) -> Option<Vec<u8>> {
    let (status, title, slug, detail) = match head.get(..12)? {
        b"HTTP/1.1 400" => (
            400,
            "Bad Request",
            "bad-request",
            "the request line or a header is malformed",
        ),
        b"HTTP/1.1 414" => (
            414,
            "URI Too Long",
            "uri-too-long",
            "the request target is too long",
        ),
        b"HTTP/1.1 431" => (
            431,
            "Request Header Fields Too Large",
            "header-too-large",
            too_large,
        ),
        _ => return None,
    };
    let head_end = head.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head_text = std::str::from_utf8(&head[..head_end])
        .ok()?
        .to_ascii_lowercase();
    if !head_text.contains("\r\ncontent-length: 0") || head.len() != head_end + 4 {
        return None;
    }
    let body = serde_json::json!({
        "type": format!("urn:levelforge:problem:{slug}"),
        "title": title,
        "status": status,
        "detail": detail,
    })
    .to_string();
    let mut answer = format!(
        "HTTP/1.1 {status} {title}\r\ncontent-type: application/problem+json\r\n\
         cache-control: no-store\r\nconnection: close\r\ncontent-length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    answer.extend_from_slice(body.as_bytes());
    Some(answer)
}

impl<T: tokio::io::AsyncWrite + Unpin> ProblemOnParseError<T> {
    /// Writes what is left of a replacement answer.
    fn poll_pending(&mut self, cx: &mut std::task::Context<'_>) -> std::task::Poll<io::Result<()>> {
        use std::task::Poll;
        while let Some((answer, written)) = &mut self.pending {
            if *written == answer.len() {
                self.pending = None;
                break;
            }
            match std::pin::Pin::new(&mut self.inner).poll_write(cx, &answer[*written..]) {
                Poll::Ready(Ok(0)) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                Poll::Ready(Ok(n)) => *written += n,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => return Poll::Pending,
            }
        }
        Poll::Ready(Ok(()))
    }
}

impl<T: tokio::io::AsyncRead + Unpin> tokio::io::AsyncRead for ProblemOnParseError<T> {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<io::Result<()>> {
        std::pin::Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<T: tokio::io::AsyncWrite + Unpin> tokio::io::AsyncWrite for ProblemOnParseError<T> {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<io::Result<usize>> {
        std::task::ready!(self.poll_pending(cx))?;
        if let Some(answer) = problem_for_hyper_error(buf, &self.too_large) {
            // hyper's bytes count as written; the replacement goes out instead.
            self.pending = Some((answer, 0));
            // Whatever is not written yet goes out before anything else, or on flush.
            let _ = self.poll_pending(cx);
            return std::task::Poll::Ready(Ok(buf.len()));
        }
        std::pin::Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> std::task::Poll<io::Result<usize>> {
        std::task::ready!(self.poll_pending(cx))?;
        let first = bufs.iter().find(|b| !b.is_empty());
        if let Some(answer) = first.and_then(|b| problem_for_hyper_error(b, &self.too_large)) {
            let claimed = first.map_or(0, |b| b.len());
            self.pending = Some((answer, 0));
            let _ = self.poll_pending(cx);
            return std::task::Poll::Ready(Ok(claimed));
        }
        std::pin::Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<io::Result<()>> {
        std::task::ready!(self.poll_pending(cx))?;
        std::pin::Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<io::Result<()>> {
        std::task::ready!(self.poll_pending(cx))?;
        std::pin::Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_hypers_bodiless_errors_are_replaced() {
        let hyper_431 = b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\n\
                          date: Mon, 23 Nov 2026 20:00:00 GMT\r\n\r\n";
        let answer = problem_for_hyper_error(hyper_431, "too large").unwrap();
        let answer = String::from_utf8(answer).unwrap();
        assert!(answer.starts_with("HTTP/1.1 431 "), "{answer}");
        assert!(answer.contains("content-type: application/problem+json"));
        let body: serde_json::Value =
            serde_json::from_str(answer.split("\r\n\r\n").nth(1).unwrap()).unwrap();
        assert_eq!(body["status"], 431);
        assert_eq!(body["detail"], "too large");
        // The app's own 400s have a body; other statuses are never touched.
        let app_400 = b"HTTP/1.1 400 Bad Request\r\ncontent-length: 120\r\n\r\n";
        assert!(problem_for_hyper_error(app_400, "").is_none());
        let ok = b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n";
        assert!(problem_for_hyper_error(ok, "").is_none());
    }
}
