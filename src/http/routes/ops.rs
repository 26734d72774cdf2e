//! Liveness and readiness.

use axum::Json;
use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use serde_json::{Value, json};

use crate::http::problem::ApiError;
use crate::http::state::AppState;

pub async fn healthz() -> Json<Value> {
    Json(json!({ "status": "ok" }))
}

/// Ready when the database answers.
pub async fn readyz(State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    state.levels.ping().await.inspect_err(|_| {
        crate::metrics::db_error("ping");
    })?;
    Ok(Json(json!({ "status": "ready" })))
}

/// Prometheus text exposition format.
pub async fn metrics() -> impl IntoResponse {
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        crate::metrics::handle().render(),
    )
}
