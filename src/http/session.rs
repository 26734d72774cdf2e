//! The dashboard's session cookie: its name, its settings, and its values in a request.

use axum::http::{HeaderMap, header};

/// The dashboard's session cookie.
pub const SESSION_COOKIE: &str = "levelforge_session";
/// Its name with `SESSION_COOKIE_SECURE`: browsers take a `__Host-` cookie only from this
/// very host over HTTPS (`Secure`, `Path=/`, no `Domain`), so no sibling host can set one
/// that the server would read.
pub const SECURE_SESSION_COOKIE: &str = "__Host-levelforge_session";

/// Settings of the session cookie.
#[derive(Clone, Debug)]
pub struct SessionSettings {
    /// Adds `Secure`: the browser then sends the cookie over HTTPS only.
    pub secure: bool,
    /// How long a sign-in lasts (cut to the key's own expiry).
    pub lifetime_s: i64,
}

impl SessionSettings {
    /// The cookie's name: `__Host-` prefixed when `Secure` (docs/security.md).
    pub fn cookie_name(&self) -> &'static str {
        if self.secure {
            SECURE_SESSION_COOKIE
        } else {
            SESSION_COOKIE
        }
    }

    /// The scheme of the dashboard's own origin: HTTPS when the cookie is `Secure`.
    pub fn scheme(&self) -> &'static str {
        if self.secure { "https" } else { "http" }
    }

    /// The `Set-Cookie` of `value` lasting `max_age_s` (0 clears it).
    pub fn cookie(&self, value: &str, max_age_s: i64) -> String {
        format!(
            "{}={value}; Path=/; Max-Age={max_age_s}; HttpOnly; SameSite=Strict{}",
            self.cookie_name(),
            if self.secure { "; Secure" } else { "" }
        )
    }
}

/// Every value sent for the cookie `name`, in order: a browser sends several when other
/// hosts or paths set one of that name too, and any of them may be the real one. (A
/// cookie header is a `;`-separated list of `name=value` pairs; no cookie library needed.)
pub fn session_cookies<'h>(headers: &'h HeaderMap, name: &'h str) -> impl Iterator<Item = &'h str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(move |pair| pair.trim().strip_prefix(name)?.strip_prefix('='))
}
