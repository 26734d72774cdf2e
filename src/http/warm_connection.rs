//! A connection's warm requests, answered without hyper.
//!
//! Every connection starts here. Each request head is parsed in place with httparse
//! (hyper's own parser) and, while it is one the warm path answers (`App::warm_answer`,
//! which reads it through [`Head`] as it reads hyper's `Parts`), answered here: the answer
//! the router's handler would send, written as hyper writes it (status line, headers,
//! `content-length`, `date`, body). The first request that is not warm is handed to hyper
//! with every byte not consumed yet, and hyper serves the connection from then on: another
//! method or route, a body or a `Connection`, `Upgrade`, `Expect` or `TE` header, HTTP/1.0,
//! a head httparse refuses or one past the caps (hyper then answers 400 or 431 as before),
//! a level not in memory, a refusal of the Host check.
//!
//! Our own code because hyper has no hook to answer a request before it builds it, and
//! that building and hyper's encoding are most of a warm read's cost (docs/benchmarks.md,
//! "Warm levels against nginx"). The guarantees hyper gave these requests are kept: the
//! head read deadline (`HTTP_HEADER_READ_TIMEOUT_MS`, idle keep-alive included), the cap on
//! a head's bytes and fields, the write timeout (on the stream), pipelined requests
//! answered in order, and the graceful shutdown (an idle connection closes at once).

use std::io;
use std::mem::MaybeUninit;
use std::pin::{Pin, pin};
use std::task::{Context, Poll};
use std::time::{Duration, SystemTime};

use axum::body::Bytes;
use axum::http::{Method, StatusCode, Version};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::sync::watch;
use tokio::time::Instant;

use super::App;
use super::head::Head;
use super::warm::WarmAnswer;

/// hyper's default cap on header fields, the most a head parsed here may hold.
const MAX_HEADERS: usize = 100;
/// Bytes asked of the socket per read.
const READ_SIZE: usize = 4096;
/// Answers to pipelined requests are written together until they hold this many bytes.
const WRITE_BATCH: usize = 16 * 1024;

/// The caps hyper applies to a request head, applied here the same way.
#[derive(Clone, Copy)]
pub(super) struct HeadLimits {
    pub read_timeout: Duration,
    pub max_bytes: usize,
    pub max_fields: usize,
}

/// How the warm part of a connection ended.
pub(super) enum Ended {
    /// Closed: by the client, by the head deadline, or by the shutdown.
    Closed,
    /// A request for hyper: the bytes read and not consumed, from its first.
    HandOff(Bytes),
}

/// Serves `stream`'s requests while each is warm. Returns when the connection closes or
/// the first request that is not warm arrives; errors are the stream's.
pub(super) async fn serve<S: AsyncRead + AsyncWrite + Unpin>(
    stream: &mut S,
    app: &App,
    limits: HeadLimits,
    shutdown: &mut watch::Receiver<()>,
) -> io::Result<Ended> {
    let mut unread = bytes::BytesMut::with_capacity(READ_SIZE);
    let mut answers = Vec::new();
    let mut stopping = pin!(shutdown.changed());
    // One timer for the connection, moved on only when it fires early: resetting it for
    // every request would cost each one a trip through the timer wheel.
    let mut deadline = Instant::now() + limits.read_timeout;
    let mut timer = pin!(tokio::time::sleep_until(deadline));
    loop {
        loop {
            let mut fields = [MaybeUninit::uninit(); MAX_HEADERS];
            let (length, answer) = match complete_head(&unread, &mut fields, limits.max_fields) {
                Ok(Some((length, head))) => match app.warm_answer(&head).await {
                    Some(answer) => (length, answer),
                    None => return hand_off(stream, &answers, unread).await,
                },
                Ok(None) => break,
                Err(NotWarm) => return hand_off(stream, &answers, unread).await,
            };
            write_answer(&answer, &mut answers);
            bytes::Buf::advance(&mut unread, length);
            deadline = Instant::now() + limits.read_timeout;
            // Pipelined answers go out together, up to a bound on what waits in memory.
            if answers.len() >= WRITE_BATCH {
                stream.write_all(&answers).await?;
                answers.clear();
            }
        }
        if !answers.is_empty() {
            stream.write_all(&answers).await?;
            answers.clear();
        }
        if unread.len() >= limits.max_bytes {
            return hand_off(stream, &answers, unread).await; // hyper answers 431
        }
        unread.reserve(READ_SIZE);
        loop {
            tokio::select! {
                biased;
                read = stream.read_buf(&mut unread) => {
                    if read? == 0 {
                        return Ok(Ended::Closed);
                    }
                    break;
                }
                _ = &mut stopping => return Ok(Ended::Closed),
                () = &mut timer => {
                    if Instant::now() >= deadline {
                        return Ok(Ended::Closed);
                    }
                    timer.as_mut().reset(deadline);
                }
            }
        }
    }
}

/// Writes the answers not written yet and hands the connection over.
async fn hand_off<S: AsyncWrite + Unpin>(
    stream: &mut S,
    answers: &[u8],
    unread: bytes::BytesMut,
) -> io::Result<Ended> {
    stream.write_all(answers).await?;
    Ok(Ended::HandOff(unread.freeze()))
}

/// A request the warm path does not take, which hyper parses (and answers, or refuses)
/// itself.
struct NotWarm;

/// The whole request head at the start of `unread` and its length, if it is one the warm
/// path may answer: a GET over HTTP/1.1 in origin form, without a body and without headers
/// that change how the connection goes on. `None`: not a whole head yet.
fn complete_head<'b, 'h>(
    unread: &'b [u8],
    fields: &'h mut [MaybeUninit<httparse::Header<'b>>],
    max_fields: usize,
) -> Result<Option<(usize, ParsedHead<'b, 'h>)>, NotWarm> {
    let mut request = httparse::Request::new(&mut []);
    let length = match request.parse_with_uninit_headers(unread, fields) {
        Ok(httparse::Status::Complete(length)) => length,
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(_) => return Err(NotWarm),
    };
    if request.method != Some("GET")
        || request.version != Some(1)
        || request.headers.len() > max_fields
    {
        return Err(NotWarm);
    }
    let target = request
        .path
        .filter(|path| path.starts_with('/'))
        .ok_or(NotWarm)?;
    let (path, query) = match target.split_once('?') {
        Some((path, query)) => (path, Some(query)),
        None => (target, None),
    };
    let fields = request.headers;
    let changes_the_connection = fields.iter().any(|field| {
        [
            "content-length",
            "transfer-encoding",
            "connection",
            "upgrade",
            "expect",
            "te",
        ]
        .iter()
        .any(|name| field.name.eq_ignore_ascii_case(name))
    });
    // hyper builds the path with `http::Uri`, which refuses what a `#` or a control byte
    // would make of it: such a request is hyper's, as is any with a field `HeaderValue`
    // would refuse.
    let plain_target = target.bytes().all(|b| b.is_ascii_graphic() && b != b'#');
    let plain_fields = fields.iter().all(|field| {
        field.value.iter().all(|&b| b == b'\t' || b >= 32) && !field.value.contains(&127)
    });
    if changes_the_connection || !plain_target || !plain_fields {
        return Err(NotWarm);
    }
    let head = ParsedHead {
        path,
        query,
        fields,
    };
    Ok(Some((length, head)))
}

/// A request head read in place: the path and query of its target and its fields.
struct ParsedHead<'b, 'h> {
    path: &'b str,
    query: Option<&'b str>,
    fields: &'h [httparse::Header<'b>],
}

impl Head for ParsedHead<'_, '_> {
    fn method(&self) -> &Method {
        &Method::GET
    }

    fn version(&self) -> Version {
        Version::HTTP_11
    }

    fn path(&self) -> &str {
        self.path
    }

    fn query(&self) -> Option<&str> {
        self.query
    }

    fn values<'a>(&'a self, name: &'static str) -> impl Iterator<Item = &'a [u8]> {
        self.fields
            .iter()
            .filter(move |field| field.name.eq_ignore_ascii_case(name))
            .map(|field| field.value)
    }
}

/// Appends `answer` as hyper writes it: the status line, the headers, `content-length`
/// (none on a 304) and `date`, then the body.
fn write_answer(answer: &WarmAnswer, out: &mut Vec<u8>) {
    let status = answer.status();
    for part in [
        b"HTTP/1.1 ".as_slice(),
        status.as_str().as_bytes(),
        b" ",
        status.canonical_reason().unwrap_or("").as_bytes(),
        b"\r\n",
    ] {
        out.extend_from_slice(part);
    }
    answer.write_header_lines(out);
    if status != StatusCode::NOT_MODIFIED {
        out.extend_from_slice(b"content-length: ");
        out.extend_from_slice(itoa::Buffer::new().format(answer.body().len()).as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"date: ");
    DATE.with(|date| out.extend_from_slice(date.borrow_mut().now()));
    out.extend_from_slice(b"\r\n\r\n");
    out.extend_from_slice(answer.body());
}

thread_local! {
    static DATE: std::cell::RefCell<HttpDate> = const {
        std::cell::RefCell::new(HttpDate { second: u64::MAX, text: [0; 29] })
    };
}

/// The `Date` value, formatted once a second per thread (as hyper does).
struct HttpDate {
    second: u64,
    text: [u8; 29],
}

impl HttpDate {
    fn now(&mut self) -> &[u8] {
        let now = SystemTime::now();
        let second = now
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |since| since.as_secs());
        if second != self.second {
            self.second = second;
            self.text
                .copy_from_slice(httpdate::fmt_http_date(now).as_bytes());
        }
        &self.text
    }
}

/// A stream that yields `unread` before its own bytes: a connection handed to hyper with
/// what the warm part read and did not answer.
pub(super) struct Rewind<S> {
    unread: Bytes,
    inner: S,
}

impl<S> Rewind<S> {
    pub(super) fn new(unread: Bytes, inner: S) -> Rewind<S> {
        Rewind { unread, inner }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Rewind<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if self.unread.is_empty() {
            return Pin::new(&mut self.inner).poll_read(cx, buf);
        }
        let n = self.unread.len().min(buf.remaining());
        buf.put_slice(&self.unread.split_to(n));
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Rewind<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `complete_head` makes of `text`: the length and (method, path, query, whether
    /// it has a host, the `accept-encoding` values) of a warm head; `None` for a partial one.
    fn head(text: &str, max_fields: usize) -> Result<Option<(usize, Vec<String>)>, NotWarm> {
        let mut fields = [MaybeUninit::uninit(); MAX_HEADERS];
        let parsed = complete_head(text.as_bytes(), &mut fields, max_fields)?;
        Ok(parsed.map(|(length, head)| {
            let mut seen = vec![
                head.method().to_string(),
                head.path().to_owned(),
                format!("{:?}", head.query()),
                head.has("host").to_string(),
            ];
            for value in head.values("accept-encoding") {
                seen.push(String::from_utf8(value.to_vec()).unwrap());
            }
            (length, seen)
        }))
    }

    #[test]
    fn a_plain_get_is_read_as_hyper_would() {
        let text = "GET /levels/easy/1?game=fruit HTTP/1.1\r\nHost: a:1\r\n\
                    Accept-Encoding: gzip\r\nACCEPT-encoding:  br \r\n\r\nGET /";
        let Ok(Some((length, seen))) = head(text, MAX_HEADERS) else {
            panic!("not complete");
        };
        assert_eq!(length, text.len() - "GET /".len());
        assert_eq!(
            seen,
            [
                "GET",
                "/levels/easy/1",
                "Some(\"game=fruit\")",
                "true",
                "gzip",
                "br"
            ]
        );
    }

    #[test]
    fn a_part_of_a_head_waits_for_the_rest() {
        let text = "GET /levels/easy/1 HTTP/1.1\r\nHost: a\r\n\r\n";
        for end in 0..text.len() {
            assert!(matches!(head(&text[..end], MAX_HEADERS), Ok(None)), "{end}");
        }
    }

    #[test]
    fn whatever_changes_the_connection_or_has_a_body_goes_to_hyper() {
        for text in [
            "POST /levels/easy/1 HTTP/1.1\r\nHost: a\r\n\r\n",
            "HEAD /levels/easy/1 HTTP/1.1\r\nHost: a\r\n\r\n",
            "GET /levels/easy/1 HTTP/1.0\r\nHost: a\r\n\r\n",
            "GET http://a/levels/easy/1 HTTP/1.1\r\nHost: a\r\n\r\n",
            "GET /levels/easy/1#x HTTP/1.1\r\nHost: a\r\n\r\n",
            "GET /levels/easy/1 HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n",
            "GET /levels/easy/1 HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n",
            "GET /levels/easy/1 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
            "GET /levels/easy/1 HTTP/1.1\r\nHost: a\r\nUpgrade: h2c\r\n\r\n",
            "GET /levels/easy/1 HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\n\r\n",
            "GET /levels/easy/1 HTTP/1.1\r\nHost: a\r\nTE: trailers\r\n\r\n",
            "GET /levels/easy/1 HTTP/1.1\r\nHo st: a\r\n\r\n",
            "GET /levels/easy/1 HTTP/1.1\r\nHost: \x01\r\n\r\n",
            "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
        ] {
            assert!(matches!(head(text, MAX_HEADERS), Err(NotWarm)), "{text:?}");
        }
        let many = format!("GET / HTTP/1.1\r\n{}\r\n", "a: b\r\n".repeat(3));
        assert!(matches!(head(&many, 2), Err(NotWarm)));
        assert!(matches!(head(&many, 3), Ok(Some(_))));
        let too_many = format!(
            "GET / HTTP/1.1\r\n{}\r\n",
            "a: b\r\n".repeat(MAX_HEADERS + 1)
        );
        assert!(matches!(head(&too_many, MAX_HEADERS), Err(NotWarm)));
    }

    #[tokio::test]
    async fn a_handed_over_stream_reads_the_unread_bytes_first() {
        let (mut client, server) = tokio::io::duplex(64);
        client.write_all(b" world").await.unwrap();
        drop(client);
        let mut stream = Rewind::new(Bytes::from_static(b"hello"), server);
        let mut text = String::new();
        stream.read_to_string(&mut text).await.unwrap();
        assert_eq!(text, "hello world");
    }
}
