//! Who may read the live servers: the `Host` a request names (against DNS rebinding),
//! its bearer token, and how large a request head is answered at all.
//!
//! A web page the user opens can make the browser send requests to `127.0.0.1`, but
//! only under a host name the page's origin controls: the attacker points a name of
//! theirs at `127.0.0.1` (DNS rebinding), and the browser sends that name as `Host`.
//! So a request is answered only when its `Host` is an IP address (no origin can
//! rebind an address), `localhost`, the host the server was told to bind, or a name in
//! `HOTPATH_METRICS_ALLOWED_HOSTS`. Clients that send no `Host` (HTTP/1.0 tools) are
//! not browsers and are answered.

/// Longest request line accepted (414 beyond).
pub(crate) const MAX_URL: usize = 2048;
/// Most bytes of header names and values accepted (431 beyond).
pub(crate) const MAX_HEADERS: usize = 16 * 1024;

/// The status and message refusing a request whose line (`url`) or headers
/// (`header_bytes`, names and values) are too long; `None` when both are within bounds.
pub(crate) fn too_large(url: &str, header_bytes: usize) -> Option<(u16, String)> {
    if url.len() > MAX_URL {
        return Some((414, format!("URL longer than {MAX_URL} bytes")));
    }
    if header_bytes > MAX_HEADERS {
        return Some((
            431,
            format!("request headers larger than {MAX_HEADERS} bytes"),
        ));
    }
    None
}

/// Whether a request with this `Host` header (if any) is answered. `bound` is the
/// configured host (`HOTPATH_METRICS_HOST`), `allowed` the extra names.
pub(crate) fn host_allowed(host: Option<&str>, bound: &str, allowed: &[String]) -> bool {
    let Some(host) = host else {
        return true;
    };
    let name = strip_port(host.trim());
    if name.is_empty() {
        return false;
    }
    let bare = name
        .strip_prefix('[')
        .and_then(|n| n.strip_suffix(']'))
        .unwrap_or(name);
    bare.parse::<std::net::IpAddr>().is_ok()
        || name.eq_ignore_ascii_case("localhost")
        || name.eq_ignore_ascii_case(bound)
        || allowed.iter().any(|a| name.eq_ignore_ascii_case(a))
}

/// The answer to a request whose `Host` is not allowed: 403, saying how to allow it.
pub(crate) fn forbidden(host: &str) -> hyper::Response<http_body_util::Full<hyper::body::Bytes>> {
    let body = serde_json::to_string(&hotpath_report::ApiError {
        error: format!(
            "Host {host:?} is not allowed: use an IP address or localhost, or add the name to \
             HOTPATH_METRICS_ALLOWED_HOSTS"
        ),
        feature: None,
        features: Vec::new(),
    })
    .unwrap_or_else(|_| "{\"error\":\"Host not allowed\"}".into());
    let mut response = hyper::Response::new(http_body_util::Full::new(body.into()));
    *response.status_mut() = hyper::StatusCode::FORBIDDEN;
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    response
}

/// `host:port` → `host`; `[v6]:port` → `[v6]`; anything else unchanged.
fn strip_port(host: &str) -> &str {
    if host.starts_with('[') {
        return host.find(']').map_or(host, |i| &host[..=i]);
    }
    match host.rsplit_once(':') {
        // One colon: a name or IPv4 with a port. More: an unbracketed IPv6 address.
        Some((name, port)) if !name.contains(':') && port.bytes().all(|b| b.is_ascii_digit()) => {
            name
        }
        _ => host,
    }
}

/// Whether an `Authorization` value carries `token` in the `Bearer` scheme (the scheme
/// name in any case, as RFC 9110 says; the token compared in constant time).
pub(crate) fn bearer_ok(authorization: &str, token: &str) -> bool {
    let value = authorization.trim();
    let (scheme, given) = value.split_once([' ', '\t']).unwrap_or((value, ""));
    let scheme_ok = scheme.eq_ignore_ascii_case("bearer");
    let token_ok = constant_time_eq(given.trim().as_bytes(), token.as_bytes());
    scheme_ok & token_ok
}

/// Compares in time that depends only on the lengths, not on where the bytes differ.
pub(crate) fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    let n = a.len().max(b.len());
    let mut diff = (a.len() ^ b.len()) as u64;
    for i in 0..n {
        let x = a.get(i).copied().unwrap_or(0);
        let y = b.get(i).copied().unwrap_or(0);
        diff |= u64::from(x ^ y);
    }
    std::hint::black_box(diff) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_localhost_the_bound_name_and_listed_names_are_answered() {
        let allowed = vec!["metrics.internal".to_string()];
        let ok = |h: &str| host_allowed(Some(h), "127.0.0.1", &allowed);
        for h in [
            "127.0.0.1:6770",
            "127.0.0.1",
            "10.1.2.3:80",
            "[::1]:6770",
            "[::1]",
            "::1",
            "localhost:6770",
            "LOCALHOST",
            "metrics.internal:6770",
        ] {
            assert!(ok(h), "{h}");
        }
        for h in [
            "evil.example:6770",
            "evil.example",
            "localhost.evil.example",
            "",
            ":6770",
        ] {
            assert!(!ok(h), "{h}");
        }
        assert!(host_allowed(Some("box.lan:1"), "box.lan", &[]));
        assert!(host_allowed(None, "127.0.0.1", &[]));
    }

    #[test]
    fn the_bearer_scheme_is_matched_in_any_case() {
        for v in [
            "Bearer s3cret",
            "bearer s3cret",
            "BEARER  s3cret ",
            "Bearer\ts3cret",
        ] {
            assert!(bearer_ok(v, "s3cret"), "{v:?}");
        }
        for v in [
            "Bearer wrong",
            "s3cret",
            "Basic s3cret",
            "Bearers3cret",
            "",
            "Bearer",
        ] {
            assert!(!bearer_ok(v, "s3cret"), "{v:?}");
        }
    }

    #[test]
    fn tokens_compare_equal_only_when_equal() {
        assert!(constant_time_eq(b"Bearer abc", b"Bearer abc"));
        assert!(!constant_time_eq(b"Bearer abd", b"Bearer abc"));
        assert!(!constant_time_eq(b"Bearer ab", b"Bearer abc"));
        assert!(!constant_time_eq(b"", b"Bearer abc"));
        assert!(!constant_time_eq(b"Bearer abc\0", b"Bearer abc"));
    }
}
