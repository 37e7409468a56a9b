//! The MCP server (feature `hotpath-mcp`): the report so far as tools an AI agent calls,
//! over the Model Context Protocol's streamable HTTP transport.
//!
//! Started only when asked for (`HOTPATH_MCP_PORT`, or the builder's `mcp_port`), on
//! `127.0.0.1` unless `HOTPATH_MCP_HOST` says otherwise, at the path `/mcp`. It is the
//! metrics server's plumbing ([`super::Server`], [`super::serve`]: one thread of its own,
//! `hotpath-mcp`, bounded connections and request heads) with the official SDK (`rmcp`)
//! answering each request: stateless (no session is kept between requests, so nothing
//! grows with the number of clients), JSON answers rather than event streams, request
//! bodies of at most [`MAX_BODY`] bytes. Before the SDK sees a request, this module
//! checks the bearer token (`HOTPATH_MCP_AUTH_TOKEN`, compared in constant time: 401
//! without it), the path (404) and the sizes of the request line and headers (414, 431).
//! Such a refusal's body is a JSON-RPC error whose message says what is wrong, so that
//! an MCP client shows it rather than a bare status.
//!
//! The tools are in [`server`] (what the client sees) and [`tools`] (what they answer).

mod compare;
mod server;
mod tools;

use std::convert::Infallible;
use std::sync::Arc;

use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, StatusCode};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::access;
use crate::source::Source;
use crate::{Kind, Options, Server};

/// The MCP server.
pub(crate) const MCP: Kind = Kind {
    what: "MCP server",
    thread: "hotpath-mcp",
    port_var: "HOTPATH_MCP_PORT",
    host_var: "HOTPATH_MCP_HOST",
    token_var: "HOTPATH_MCP_AUTH_TOKEN",
    path: PATH,
};

/// The one path the server answers on.
pub(crate) const PATH: &str = "/mcp";
/// Most bytes of one request body (a JSON-RPC message): 413 beyond. A tool call is a few
/// hundred bytes.
pub(crate) const MAX_BODY: usize = 256 * 1024;

type Body = BoxBody<Bytes, Infallible>;

/// Starts the MCP server, or warns once and returns `None` (a port in use, a bad host):
/// the program runs on without it.
pub fn start(options: Options, source: Arc<dyn Source>) -> Option<Server> {
    let token: Option<Arc<str>> = options.token.clone().map(Arc::from);
    let loopback = is_loopback(&options.host);
    let hosts = Arc::new((options.host.clone(), options.allowed_hosts.clone()));
    Server::start(&MCP, &options, move |listener, stop| async move {
        // The SDK reports through `tracing`; on this thread its events go nowhere, so
        // that they never reach a subscriber of the program.
        let _quiet = tracing::dispatcher::set_default(&tracing::Dispatch::none());
        let service = StreamableHttpService::new(
            move || Ok(server::Tools::new(source.clone())),
            Arc::new(NeverSessionManager::default()),
            config(loopback),
        );
        crate::serve(listener, &stop, move |request: Request<Incoming>| {
            let refused = check(&request, token.as_deref(), &hosts);
            let service = service.clone();
            async move {
                match refused {
                    Some(answer) => answer,
                    None => service.handle(request).await,
                }
            }
        })
        .await;
    })
}

/// How the SDK serves: stateless (no session kept between requests), JSON answers, no
/// event streams, bodies of at most [`MAX_BODY`] bytes.
fn config(loopback: bool) -> StreamableHttpServerConfig {
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None)
        .with_max_request_body_bytes(MAX_BODY);
    if loopback {
        config
    } else {
        // The Host check guards a loopback server against DNS rebinding; a server on
        // another address is reached under names it cannot know (the token guards it).
        config.disable_allowed_hosts()
    }
}

/// Whether `host` is a loopback address or `localhost`.
fn is_loopback(host: &str) -> bool {
    let h = host.trim_start_matches('[').trim_end_matches(']');
    h.eq_ignore_ascii_case("localhost")
        || h.parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// The answer to a request the SDK must not see: a `Host` the metrics server would
/// refuse too (`hosts`: the bound host and the allowed names), too long, not authorised,
/// another path. `None` lets it through.
fn check(
    request: &Request<Incoming>,
    token: Option<&str>,
    hosts: &(String, Vec<String>),
) -> Option<Response<Body>> {
    let url = request.uri().path_and_query().map_or("/", |p| p.as_str());
    let headers: Vec<(&str, &[u8])> = request
        .headers()
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_bytes()))
        .collect();
    refusal(url, &headers, token, hosts).map(|(status, error, header)| {
        let body = refusal_body(status, &error);
        let mut response = Response::new(Full::new(Bytes::from(body)).boxed());
        *response.status_mut() =
            StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let h = response.headers_mut();
        h.insert(
            hyper::header::CONTENT_TYPE,
            hyper::header::HeaderValue::from_static("application/json"),
        );
        if let Some((name, value)) = header {
            h.insert(name, hyper::header::HeaderValue::from_static(value));
        }
        response
    })
}

/// JSON-RPC error code of a refusal for want of a token (the range -32000 to -32099 is
/// the server's own).
pub(crate) const UNAUTHORIZED: i64 = -32001;
/// JSON-RPC error code of the other refusals: Invalid Request.
pub(crate) const INVALID_REQUEST: i64 = -32600;

/// A refusal as a JSON-RPC error (`id` null: the request was not read), which MCP
/// clients show to their user: `{"jsonrpc":"2.0","id":null,"error":{"code":..,"message":..}}`.
fn refusal_body(status: u16, message: &str) -> String {
    let code = if status == 401 {
        UNAUTHORIZED
    } else {
        INVALID_REQUEST
    };
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": { "code": code, "message": message },
    })
    .to_string()
}

/// A refused request's status, message and extra header.
type Refusal = (
    u16,
    String,
    Option<(hyper::header::HeaderName, &'static str)>,
);

/// Why a request is refused before the SDK sees it. Pure, for tests.
fn refusal(
    url: &str,
    headers: &[(&str, &[u8])],
    token: Option<&str>,
    hosts: &(String, Vec<String>),
) -> Option<Refusal> {
    // The metrics server's rule, on every address (the SDK's own check guards only a
    // loopback server): an IP address, localhost, the bound host or an allowed name.
    let host = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("host"))
        .map(|(_, v)| std::str::from_utf8(v).unwrap_or("\u{fffd}"));
    if !access::host_allowed(host, &hosts.0, &hosts.1) {
        return Some((
            403,
            format!(
                "Host {:?} is not allowed: use an IP address or localhost, or add the name \
                 to HOTPATH_METRICS_ALLOWED_HOSTS",
                host.unwrap_or("")
            ),
            None,
        ));
    }
    let header_bytes: usize = headers.iter().map(|(k, v)| k.len() + v.len()).sum();
    if let Some((status, error)) = access::too_large(url, header_bytes) {
        return Some((status, error, None));
    }
    if let Some(token) = token {
        let given = headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("authorization"))
            .map_or(&b""[..], |(_, v)| *v);
        // The metrics server's check: the scheme in any case, the token in constant time.
        let given = std::str::from_utf8(given).unwrap_or("");
        if !access::bearer_ok(given, token) {
            return Some((
                401,
                "missing or wrong token: send `Authorization: Bearer <HOTPATH_MCP_AUTH_TOKEN>`"
                    .into(),
                Some((hyper::header::WWW_AUTHENTICATE, "Bearer")),
            ));
        }
    }
    let path = url.split(['?', '#']).next().unwrap_or("");
    if path != PATH && path != "/mcp/" {
        return Some((
            404,
            format!("no route {path}; the MCP endpoint is {PATH}"),
            None,
        ));
    }
    None
}

#[cfg(test)]
mod tests;
