//! The whole HTTP service as the server calls it, one request at a time.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::ConnectInfo;
use axum::http::Request;
use axum::response::{IntoResponse, Response};
use tower::ServiceExt;

use super::state::AppState;
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
        if let Err(refusal) = host::one_host(&request).and_then(|()| host::one_credential(&request))
        {
            return Ok(refusal.into_response());
        }
        if let Some(response) = self.warm.answer(&request).await {
            return Ok(response);
        }
        let mut request = request;
        request.extensions_mut().insert(ConnectInfo(peer));
        self.router.oneshot(request).await
    }
}
