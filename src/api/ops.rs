//! Liveness and readiness.

use axum::Json;
use axum::extract::State;
use serde_json::{Value, json};

use super::AppState;
use super::problem::ApiError;

pub async fn healthz() -> Json<Value> {
    Json(json!({ "status": "ok" }))
}

/// Ready when the database answers.
pub async fn readyz(State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    state.levels.store().ping().await?;
    Ok(Json(json!({ "status": "ready" })))
}
