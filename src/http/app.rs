//! The whole HTTP service as the server calls it, one request at a time.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::Request;
use axum::response::{IntoResponse, Response};
use hyper::body::Body as _;
use tower::ServiceExt;

use super::head::Head;
use super::state::AppState;
use super::warm::WarmAnswer;
use super::{host, overload, router, warm};

/// The whole HTTP service: warm immutable answers first ([`warm`]), every other request
/// through the router and its layers.
#[derive(Clone)]
pub struct App {
    router: Router,
    warm: Arc<warm::WarmPath>,
}

impl App {
    pub fn new(state: AppState) -> App {
        let overload = Arc::new(overload::Overload::new(&state.limits));
        App {
            warm: Arc::new(warm::WarmPath::new(state.clone(), overload.clone())),
            router: router::router(state, overload),
        }
    }

    /// Answers one request from `peer`.
    pub async fn call(
        self,
        request: Request<hyper::body::Incoming>,
        peer: SocketAddr,
    ) -> Result<Response, std::convert::Infallible> {
        let (head, body) = request.into_parts();
        if let Err(refusal) = host::checked(&head) {
            return Ok(refusal.into_response());
        }
        if body.is_end_stream()
            && let Some(answer) = self.warm.answer(&head).await
        {
            return Ok(answer.into_response().map(Body::from));
        }
        let mut request = Request::from_parts(head, body);
        request.extensions_mut().insert(ConnectInfo(peer));
        self.router.oneshot(request).await
    }

    /// The warm answer to a request head without a body, which passes the checks every
    /// request passes; `None` for any other (the router's, or a refusal).
    pub async fn warm_answer(&self, head: &impl Head) -> Option<WarmAnswer> {
        host::checked(head).ok()?;
        self.warm.answer(head).await
    }
}
