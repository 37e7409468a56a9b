//! `http_diff plain|wrapped [REPORT]`: one seeded script of 160 requests (methods,
//! statuses, headers, bodies empty, echoed and streamed, unmatched paths, a refused
//! connection) from reqwest 0.13, reqwest 0.12 and ureq 3 clients to two servers on
//! loopback: an axum router, and a plain tower service (no axum routing) mounted as a
//! router's fallback. Plain: no wrapper anywhere; wrapped: `axum!` on the router,
//! `HttpServerLayer` on the tower service and `http!` on every client (reqwest 0.12's
//! with body timing). Prints one line
//! per result on stdout: the two logs must be byte-identical. On stderr, the requests
//! each client made and each server answered, for the wrapped run's report (JSON in
//! REPORT) to be checked against.
use std::collections::BTreeMap;
use std::convert::Infallible;
use std::fmt::Write as _;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::routing::{get, post};
use tower_layer::Layer;

/// xorshift64*: the script's only source of choices.
struct Rng(u64);

impl Rng {
    fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Client {
    Reqwest13,
    Reqwest12,
    Ureq,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Server {
    Axum,
    Tower,
    /// A port nothing listens on.
    Refused,
}

#[derive(Clone, Debug)]
struct Req {
    client: Client,
    server: Server,
    post: bool,
    path: String,
}

fn script(seed: u64, n: usize) -> Vec<Req> {
    let mut r = Rng(seed);
    (0..n)
        .map(|_| {
            let client = [Client::Reqwest13, Client::Reqwest12, Client::Ureq][r.next(3) as usize];
            let server = match r.next(20) {
                0 => Server::Refused,
                1..=11 => Server::Axum,
                _ => Server::Tower,
            };
            let post = r.next(3) == 0;
            let id = r.next(1000);
            let path = match server {
                Server::Axum => match r.next(7) {
                    0 => "/echo".to_string(),
                    1 => "/stream".to_string(),
                    2 => "/empty".to_string(),
                    3 => "/slow".to_string(),
                    4 => format!("/users/{id}"),
                    5 => "/fail".to_string(),
                    _ => format!("/missing/{id}?q=secret"),
                },
                Server::Tower => match r.next(3) {
                    0 => format!("/items/{id}"),
                    1 => "/chunks".to_string(),
                    _ => format!("/items/{id}/gone"),
                },
                Server::Refused => "/x".to_string(),
            };
            Req {
                client,
                server,
                post,
                path,
            }
        })
        .collect()
}

async fn echo(
    body: String,
) -> (
    axum::http::StatusCode,
    [(&'static str, &'static str); 1],
    String,
) {
    (
        axum::http::StatusCode::CREATED,
        [("x-echo", "1")],
        body.to_uppercase(),
    )
}

fn chunks(n: u8) -> Body {
    Body::from_stream(futures_util::stream::iter(
        (0..n).map(|i| Ok::<_, Infallible>(bytes::Bytes::from(vec![b'a' + i; 3]))),
    ))
}

async fn stream(_: bytes::Bytes) -> Body {
    chunks(5)
}

async fn empty(_: bytes::Bytes) -> axum::http::StatusCode {
    axum::http::StatusCode::NO_CONTENT
}

async fn slow(_: bytes::Bytes) -> &'static str {
    tokio::time::sleep(Duration::from_millis(2)).await;
    "late"
}

async fn user(axum::extract::Path(id): axum::extract::Path<u64>, _: bytes::Bytes) -> String {
    format!("user {id}")
}

async fn fail(_: bytes::Bytes) -> (axum::http::StatusCode, &'static str) {
    (axum::http::StatusCode::INTERNAL_SERVER_ERROR, "broken")
}

/// Unmatched paths: 404, after reading the request's body as the handlers do (a body
/// left unread may close the connection, and a client reusing it then fails: a race
/// the script must not depend on).
async fn not_found(_: bytes::Bytes) -> axum::http::StatusCode {
    axum::http::StatusCode::NOT_FOUND
}

/// A tower service of its own (no axum routing): `/items/{id}` answers its id and the
/// method, `/chunks` a streamed body, anything else 410.
#[derive(Clone)]
struct Items;

impl tower_service::Service<http::Request<Body>> for Items {
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<http::Response<Body>, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: http::Request<Body>) -> Self::Future {
        let segs: Vec<String> = req.uri().path().split('/').map(str::to_string).collect();
        let method = req.method().clone();
        Box::pin(async move {
            // The request's body is read first, as the axum handlers read theirs.
            http_body_util::BodyExt::collect(req.into_body())
                .await
                .unwrap();
            let (status, body) = match segs.as_slice() {
                [_, a, id] if a == "items" => (200, Body::from(format!("{method} item {id}"))),
                [_, c] if c == "chunks" => (200, chunks(4)),
                _ => (410, Body::from("gone")),
            };
            Ok(http::Response::builder()
                .status(status)
                .header("x-items", "1")
                .body(body)
                .unwrap())
        })
    }
}

/// The header a handler marks its answer with (`x-echo` or `x-items`), if any.
fn marker(h: &http::HeaderMap) -> Option<http::HeaderValue> {
    h.get("x-echo").or(h.get("x-items")).cloned()
}

/// Sends one request of the script through a reqwest client (0.12 or 0.13, plain or
/// with middleware: the same calls on other types).
macro_rules! send {
    ($client:expr, $post:expr, $url:expr) => {{
        let b = if $post {
            $client.post($url).body("hello")
        } else {
            $client.get($url)
        };
        b.send().await.map_err(|e| e.is_connect())
    }};
}

/// One request through `$plain` or `$wrapped` and its log line: status, a header, what
/// the response says of itself (URL, length, version, peer) and its body.
macro_rules! reqwest_line {
    ($plain:expr, $wrapped:expr, $use_wrapped:expr, $post:expr, $url:expr) => {{
        let r = if $use_wrapped {
            send!($wrapped, $post, $url)
        } else {
            send!($plain, $post, $url)
        };
        match r {
            Ok(r) => {
                let status = r.status().as_u16();
                let h = marker(r.headers());
                let what = (
                    r.url().path().to_string(),
                    r.url().query().map(str::to_string),
                    r.content_length(),
                    r.version(),
                    r.remote_addr().map(|a| a.ip()),
                );
                format!("{status} {h:?} {what:?} {:?}", r.bytes().await.unwrap())
            }
            Err(connect) => format!("error connect={connect}"),
        }
    }};
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let wrapped = args.get(1).map(String::as_str) == Some("wrapped");
    let _guard = wrapped.then(|| {
        let b = hotpath::HotpathGuardBuilder::new("http_diff::main").format(hotpath::Format::Json);
        match args.get(2) {
            Some(path) => b.output_path(path),
            None => b.format(hotpath::Format::None),
        }
        .build()
    });
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (log, counts) = rt.block_on(async move {
        let app = axum::Router::new()
            .route("/echo", post(echo).get(echo))
            .route("/stream", get(stream).post(stream))
            .route("/empty", get(empty).post(empty))
            .route("/slow", get(slow).post(slow))
            .route("/users/{id}", get(user).post(user))
            .route("/fail", get(fail).post(fail))
            .fallback(not_found);
        let app = if wrapped {
            hotpath::axum!(app)
        } else {
            app.layer(tower_layer::Identity::new())
        };
        let items = if wrapped {
            axum::Router::new().fallback_service(hotpath::HttpServerLayer::new().layer(Items))
        } else {
            axum::Router::new().fallback_service(Items)
        };
        let mut bases = Vec::new();
        for router in [app, items] {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            bases.push(format!("http://{}", listener.local_addr().unwrap()));
            tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
        }
        let refused = format!("http://127.0.0.1:{}", hotpath_service_tests::free_port());

        let c13 = reqwest_013::Client::new();
        let c13w = hotpath::http!(reqwest_013::Client::new());
        let c12 = reqwest_012::Client::new();
        // With body timing: its responses are re-wrapped, and must not differ either.
        let c12w = hotpath::http!(reqwest_012::Client::new(), label = "v12", body = true);
        let agent: ureq::Agent = if wrapped {
            hotpath::http!(ureq::Agent::config_builder()).build().into()
        } else {
            ureq::Agent::config_builder().build().into()
        };

        let mut log = String::new();
        let mut counts: BTreeMap<String, u64> = BTreeMap::new();
        for (i, req) in script(0x4771_5EED, 160).into_iter().enumerate() {
            let base = match req.server {
                Server::Axum => &bases[0],
                Server::Tower => &bases[1],
                Server::Refused => &refused,
            };
            let url = format!("{base}{}", req.path);
            let method = if req.post { "POST" } else { "GET" };
            *counts.entry(format!("{:?}", req.client)).or_default() += 1;
            if req.server != Server::Refused {
                *counts.entry(format!("{:?}", req.server)).or_default() += 1;
            }
            let line = match req.client {
                Client::Reqwest13 => reqwest_line!(c13, c13w, wrapped, req.post, &url),
                Client::Reqwest12 => reqwest_line!(c12, c12w, wrapped, req.post, &url),
                Client::Ureq => {
                    let agent = agent.clone();
                    let post = req.post;
                    tokio::task::spawn_blocking(move || {
                        let r = if post {
                            agent.post(&url).send("hello")
                        } else {
                            agent.get(&url).call()
                        };
                        match r {
                            Ok(mut r) => {
                                let status = r.status().as_u16();
                                let h = marker(r.headers());
                                format!(
                                    "{status} {h:?} {:?}",
                                    r.body_mut().read_to_string().unwrap()
                                )
                            }
                            Err(ureq::Error::StatusCode(s)) => format!("status error {s}"),
                            Err(e) => format!(
                                "error {}",
                                matches!(e, ureq::Error::Io(_) | ureq::Error::ConnectionFailed)
                            ),
                        }
                    })
                    .await
                    .unwrap()
                }
            };
            writeln!(
                log,
                "{i} {:?} {:?} {method} {} {line}",
                req.client, req.server, req.path
            )
            .unwrap();
        }
        (log, counts)
    });
    print!("{log}");
    let counts: Vec<String> = counts.iter().map(|(k, v)| format!("{k}={v}")).collect();
    eprintln!("{}", counts.join(" "));
}
