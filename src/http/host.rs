//! The checks every request passes before the warm path and the router: one well-formed
//! `Host`, and at most one credential or idempotency key.

use super::head::Head;
use super::problem::ApiError;

/// Both checks below: the first refusal, if any.
pub fn checked(request: &impl Head) -> Result<(), ApiError> {
    one_host(request).and_then(|()| one_credential(request))
}

/// RFC 9112 §3.2: 400 for an HTTP/1.1 request without `Host`, and for any request with
/// more than one or with one that is not `host[:port]` (empty is allowed). hyper checks
/// none of it.
pub fn one_host(request: &impl Head) -> Result<(), ApiError> {
    let mut hosts = request.values("host");
    let refuse = |why: &str| Err(ApiError::BadRequest(format!("the request {why}")));
    match (hosts.next(), hosts.next()) {
        (None, _) if request.version() == axum::http::Version::HTTP_11 => {
            refuse("has no `Host` header, which HTTP/1.1 requires")
        }
        (None, _) => Ok(()),
        (Some(_), Some(_)) => refuse("has more than one `Host` header"),
        (Some(host), None) if host.is_empty() || is_authority(host) => Ok(()),
        (Some(_), None) => refuse("has a `Host` header that is not host[:port]"),
    }
}

/// 400 for a request with more than one `Authorization` or `Idempotency-Key`: which one
/// counts would be a guess (a valid token followed by a forged one, two keys for one play).
pub fn one_credential(request: &impl Head) -> Result<(), ApiError> {
    for (header, name) in [
        ("authorization", "Authorization"),
        ("idempotency-key", "Idempotency-Key"),
    ] {
        if request.values(header).nth(1).is_some() {
            return Err(ApiError::BadRequest(format!(
                "the request has more than one `{name}` header"
            )));
        }
    }
    Ok(())
}

/// `host[:port]` (RFC 3986: a name, an IPv4 address or a bracketed IP literal, and a
/// decimal port), checked without allocating: it runs before every warm answer.
fn is_authority(text: &[u8]) -> bool {
    let name_byte = |b: &u8| b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=%".contains(b);
    let (host_ok, rest) = match text.strip_prefix(b"[") {
        Some(literal) => match literal.iter().position(|&b| b == b']') {
            Some(end) => (
                end > 0 && literal[..end].iter().all(|b| name_byte(b) || *b == b':'),
                &literal[end + 1..],
            ),
            None => (false, &[][..]),
        },
        None => {
            let end = text.iter().position(|&b| b == b':').unwrap_or(text.len());
            (end > 0 && text[..end].iter().all(name_byte), &text[end..])
        }
    };
    let port_ok = match rest.split_first() {
        None => true,
        Some((b':', port)) => port.iter().all(u8::is_ascii_digit),
        Some(_) => false,
    };
    host_ok && port_ok
}

#[cfg(test)]
mod tests {
    use super::is_authority;

    #[test]
    fn a_host_is_a_name_or_address_and_an_optional_port() {
        for host in [
            "localhost",
            "a.example:8080",
            "127.0.0.1:80",
            "[::1]",
            "[::1]:8080",
            "x:",
        ] {
            assert!(is_authority(host.as_bytes()), "{host}");
        }
        for host in [
            "user@a", "a/b", "a b", ":80", "a:8o", "[::1", "[]", "[::1]x", "a:1:2",
        ] {
            assert!(!is_authority(host.as_bytes()), "{host}");
        }
    }
}
