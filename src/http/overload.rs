//! The overload guard: bounded body reads, the global in-flight limit (shedding or
//! queueing) and the whole-request deadline.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::response::{IntoResponse, Response};

use super::problem::ApiError;
use super::state::AppState;
use crate::config::HttpArgs;

/// Reads the whole body first (bounded in size and time, and outside the in-flight slot,
/// so that slow uploads cannot starve other requests), then the global in-flight limit
/// (shedding or queueing), then the whole-request deadline, all answering problem+json.
/// Written as one middleware over a shared semaphore: `Router::layer` wraps every route
/// separately, and tower's load-shed and concurrency layers queued instead of shedding
/// there.
pub fn overload_layers(routes: Router<AppState>, guard: Arc<Overload>) -> Router<AppState> {
    routes.layer(axum::middleware::from_fn(move |request, next| {
        let guard = guard.clone();
        async move { guard.run(request, next).await }
    }))
}

/// Bodies above this size get 413.
pub const BODY_LIMIT: usize = 64 * 1024;

pub struct Overload {
    slots: Option<Arc<tokio::sync::Semaphore>>,
    load_shed: bool,
    timeout: Duration,
    body_timeout: Duration,
}

impl Overload {
    pub fn new(limits: &HttpArgs) -> Overload {
        Overload {
            slots: (limits.http_max_in_flight > 0)
                .then(|| Arc::new(tokio::sync::Semaphore::new(limits.http_max_in_flight))),
            load_shed: limits.http_load_shed,
            timeout: Duration::from_millis(limits.http_request_timeout_ms),
            body_timeout: Duration::from_millis(limits.http_body_read_timeout_ms),
        }
    }

    /// An in-flight slot if one is free now (`Some(None)` when there is no limit); `None`
    /// when all are taken, and the full path decides between shedding and queueing.
    pub fn try_slot(&self) -> Option<Option<tokio::sync::SemaphorePermit<'_>>> {
        match &self.slots {
            None => Some(None),
            Some(slots) => slots.try_acquire().ok().map(Some),
        }
    }

    async fn run(&self, request: axum::extract::Request, next: axum::middleware::Next) -> Response {
        let deadline = tokio::time::Instant::now() + self.timeout;
        let request = match self.read_body(request, deadline).await {
            Ok(request) => request,
            Err(refusal) => return refusal,
        };
        let _permit = match &self.slots {
            None => None,
            Some(slots) if self.load_shed => match slots.clone().try_acquire_owned() {
                Ok(permit) => Some(permit),
                Err(_) => return refused("shed"),
            },
            Some(slots) => {
                match tokio::time::timeout_at(deadline, slots.clone().acquire_owned()).await {
                    Ok(Ok(permit)) => Some(permit),
                    _ => return refused("timeout"),
                }
            }
        };
        tokio::time::timeout_at(deadline, next.run(request))
            .await
            .unwrap_or_else(|_| refused("timeout"))
    }

    /// The request with its body in memory: 413 at once when the declared length is over
    /// [`BODY_LIMIT`], 408 when the body does not arrive within the body read timeout.
    /// Both close the connection, since the rest of the body is never read.
    async fn read_body(
        &self,
        request: axum::extract::Request,
        deadline: tokio::time::Instant,
    ) -> Result<axum::extract::Request, Response> {
        use http_body_util::{BodyExt, LengthLimitError, Limited};
        let declared = request
            .headers()
            .get(axum::http::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if declared.is_some_and(|length| length > BODY_LIMIT as u64) {
            return Err(closing(too_large()));
        }
        let (parts, body) = request.into_parts();
        let body_deadline = deadline.min(tokio::time::Instant::now() + self.body_timeout);
        let read = Limited::new(body, BODY_LIMIT).collect();
        let bytes = match tokio::time::timeout_at(body_deadline, read).await {
            Ok(Ok(collected)) => collected.to_bytes(),
            Ok(Err(error)) if error.is::<LengthLimitError>() => return Err(closing(too_large())),
            Ok(Err(error)) => {
                return Err(closing(
                    ApiError::BadRequest(format!("the body could not be read: {error}"))
                        .into_response(),
                ));
            }
            Err(_) if body_deadline == deadline => return Err(closing(refused("timeout"))),
            Err(_) => {
                crate::metrics::refused("body_timeout");
                return Err(closing(ApiError::RequestTimeout.into_response()));
            }
        };
        Ok(axum::extract::Request::from_parts(
            parts,
            axum::body::Body::from(bytes),
        ))
    }
}

fn too_large() -> Response {
    ApiError::PayloadTooLarge(format!("the body is larger than {BODY_LIMIT} bytes")).into_response()
}

/// `response`, telling the client (and hyper) that the connection closes after it.
fn closing(mut response: Response) -> Response {
    response.headers_mut().insert(
        axum::http::header::CONNECTION,
        axum::http::HeaderValue::from_static("close"),
    );
    response
}

/// A request the overload guard turns away, as a problem.
pub fn refused(reason: &'static str) -> Response {
    crate::metrics::refused(reason);
    let (detail, retry_after_s) = if reason == "shed" {
        (
            "the server is handling too many requests; try again shortly",
            1,
        )
    } else {
        ("the request ran past the server's deadline", 5)
    };
    ApiError::Unavailable {
        detail: detail.into(),
        retry_after_s,
    }
    .into_response()
}
