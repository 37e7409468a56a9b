//! `http`: an axum 0.8 server on 127.0.0.1:0 with `hotpath::axum!`, called by clients
//! wrapped with `hotpath::http!`:
//! - `fetch_all` (reqwest 0.13): 50 × `GET /users/{id}` (the handler sleeps 10 ms);
//! - `fetch_012` (reqwest 0.12) and `fetch_ureq` (ureq 3): 5 × `GET /users/{id}` each;
//! - `misses`: 10 × `GET /missing?q=secret` (404), 1 × `GET /fail` (500);
//! - `stream`: `GET /stream`, a body of 10 chunks 20 ms apart, read to the end;
//! - `read_stream_timed`: the same through `http!(client, body = true)`, the request
//!   sent by `send_timed` and its body read by `read_stream_timed`;
//! - `truncated`: a response promising 100 bytes and sending 10, read by a plain and a
//!   body-timing reqwest 0.13 client: both errors described on stderr (`truncated ...`);
//! - `refused`: one request to a port bound and released (no response);
//! - `abandon`: `GET /long` (10 chunks 20 ms apart), dropped after its first chunk; the
//!   program waits until the server has dropped the body (a guard in the stream).
use std::time::Duration;

use axum::routing::get;

async fn user(axum::extract::Path(id): axum::extract::Path<u32>) -> String {
    tokio::time::sleep(Duration::from_millis(10)).await;
    format!("user {id}")
}

async fn fail() -> (axum::http::StatusCode, &'static str) {
    (axum::http::StatusCode::INTERNAL_SERVER_ERROR, "no")
}

async fn stream() -> axum::body::Body {
    let chunks = futures_util::stream::unfold(0u32, |i| async move {
        if i == 10 {
            return None;
        }
        if i > 0 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        Some((
            Ok::<_, std::convert::Infallible>(bytes::Bytes::from(vec![b'x'; 100])),
            i + 1,
        ))
    });
    axum::body::Body::from_stream(chunks)
}

/// Signals when the server drops the body of `/long`.
struct Dropped(Option<tokio::sync::oneshot::Sender<()>>);

impl Drop for Dropped {
    fn drop(&mut self) {
        if let Some(tx) = self.0.take() {
            let _ = tx.send(());
        }
    }
}

static LONG_DROPPED: std::sync::Mutex<Option<tokio::sync::oneshot::Sender<()>>> =
    std::sync::Mutex::new(None);

async fn long() -> axum::body::Body {
    let guard = Dropped(LONG_DROPPED.lock().unwrap().take());
    let chunks = futures_util::stream::unfold((0u32, guard), |(i, g)| async move {
        if i == 10 {
            return None;
        }
        if i > 0 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        Some((
            Ok::<_, std::convert::Infallible>(bytes::Bytes::from(vec![b'y'; 100])),
            (i + 1, g),
        ))
    });
    axum::body::Body::from_stream(chunks)
}

#[hotpath::measure]
async fn abandon(client: &reqwest_middleware_05::ClientWithMiddleware, base: &str) {
    let (tx, rx) = tokio::sync::oneshot::channel();
    *LONG_DROPPED.lock().unwrap() = Some(tx);
    let mut r = client.get(format!("{base}/long")).send().await.unwrap();
    assert!(r.chunk().await.unwrap().is_some());
    drop(r);
    tokio::time::timeout(Duration::from_secs(30), rx)
        .await
        .expect("the server dropped the abandoned body")
        .unwrap();
}

#[hotpath::measure]
async fn fetch_all(client: &reqwest_middleware_05::ClientWithMiddleware, base: &str) {
    for id in 1..=50 {
        let r = client
            .get(format!("{base}/users/{id}"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.text().await.unwrap(), format!("user {id}"));
    }
}

#[hotpath::measure]
async fn fetch_012(client: &reqwest_middleware_04::ClientWithMiddleware, base: &str) {
    for id in 1..=5 {
        let r = client
            .get(format!("{base}/users/{id}"))
            .send()
            .await
            .unwrap();
        assert!(r.status().is_success());
    }
}

#[hotpath::measure]
fn fetch_ureq(agent: &ureq::Agent, base: &str) {
    for id in 1..=5 {
        let mut r = agent.get(format!("{base}/users/{id}")).call().unwrap();
        assert_eq!(r.body_mut().read_to_string().unwrap(), format!("user {id}"));
    }
}

#[hotpath::measure]
async fn misses(client: &reqwest_middleware_05::ClientWithMiddleware, base: &str) {
    for _ in 0..10 {
        let r = client
            .get(format!("{base}/missing?q=secret"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 404);
    }
    let r = client.get(format!("{base}/fail")).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 500);
}

#[hotpath::measure]
async fn read_stream(client: &reqwest_middleware_05::ClientWithMiddleware, base: &str) -> usize {
    let r = client.get(format!("{base}/stream")).send().await.unwrap();
    r.bytes().await.unwrap().len()
}

/// Sends the request and returns the response, its body unread.
#[hotpath::measure]
async fn send_timed(
    client: &reqwest_middleware_05::ClientWithMiddleware,
    base: &str,
) -> reqwest_013::Response {
    client.get(format!("{base}/stream")).send().await.unwrap()
}

/// Reads the body of the response `send_timed` returned.
#[hotpath::measure]
async fn read_stream_timed(
    client: &reqwest_middleware_05::ClientWithMiddleware,
    base: &str,
) -> usize {
    let r = send_timed(client, base).await;
    r.bytes().await.unwrap().len()
}

/// A server on loopback whose one response promises 100 bytes and sends 10.
async fn short_server() -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        loop {
            let (mut sock, _) = listener.accept().await.unwrap();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 4096];
                let mut got = Vec::new();
                while !got.windows(4).any(|w| w == b"\r\n\r\n") {
                    let n = sock.read(&mut buf).await.unwrap();
                    if n == 0 {
                        return;
                    }
                    got.extend_from_slice(&buf[..n]);
                }
                sock.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n0123456789")
                    .await
                    .unwrap();
            });
        }
    });
    base
}

/// An error as a program can see it: its text, kind flags and source chain.
fn describe(e: &reqwest_013::Error) -> String {
    let mut chain = Vec::new();
    let mut src = std::error::Error::source(e);
    while let Some(s) = src {
        chain.push(s.to_string());
        src = s.source();
    }
    format!(
        "{e} decode={} body={} timeout={} chain={}",
        e.is_decode(),
        e.is_body(),
        e.is_timeout(),
        chain.join(" <- ")
    )
}

#[hotpath::measure]
async fn truncated(timed: &reqwest_middleware_05::ClientWithMiddleware, base: &str) {
    let plain = reqwest_013::Client::new();
    let r = plain.get(format!("{base}/short")).send().await.unwrap();
    let p = describe(&r.bytes().await.unwrap_err());
    let r = timed.get(format!("{base}/short")).send().await.unwrap();
    assert_eq!(r.content_length(), Some(100));
    let t = describe(&r.bytes().await.unwrap_err());
    eprintln!("truncated plain: {p}");
    eprintln!("truncated timed: {t}");
}

#[hotpath::measure]
async fn refused(client: &reqwest_middleware_05::ClientWithMiddleware) -> bool {
    let port = hotpath_service_tests::free_port();
    client
        .get(format!("http://127.0.0.1:{port}/x"))
        .send()
        .await
        .is_err()
}

#[hotpath::main]
fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        hotpath::tokio_runtime!();
        let app = axum::Router::new()
            .route("/users/{id}", get(user))
            .route("/fail", get(fail))
            .route("/stream", get(stream))
            .route("/long", get(long));
        let app = hotpath::axum!(app);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

        // hotpath 0.30's `wrap::reqwest` paths name the clients `http!` gives.
        let c13: hotpath::wrap::reqwest::Client = hotpath::http!(reqwest_013::Client::new());
        let c12: hotpath::wrap::reqwest_012::Client = hotpath::http!(reqwest_012::Client::new());
        fetch_all(&c13, &base).await;
        fetch_012(&c12, &base).await;
        let agent: ureq::Agent = hotpath::http!(ureq::Agent::config_builder()).build().into();
        let b2 = base.clone();
        tokio::task::spawn_blocking(move || fetch_ureq(&agent, &b2))
            .await
            .unwrap();
        misses(&c13, &base).await;
        eprintln!("stream_bytes={}", read_stream(&c13, &base).await);
        let timed = hotpath::http!(reqwest_013::Client::new(), body = true);
        eprintln!(
            "timed_stream_bytes={}",
            read_stream_timed(&timed, &base).await
        );
        truncated(&timed, &short_server().await).await;
        assert!(refused(&c13).await);
        abandon(&c13, &base).await;
        // With HOTPATH_METRICS_PORT: the live routes and /metrics, as a scraper sees them.
        if let Ok(port) = std::env::var("HOTPATH_METRICS_PORT") {
            let plain = reqwest_013::Client::new();
            for path in ["/metrics", "/http", "/server", "/tokio_runtime"] {
                let url = format!("http://127.0.0.1:{port}{path}");
                let body = plain.get(url).send().await.unwrap().text().await.unwrap();
                eprintln!("=== {path}\n{body}\n=== end");
            }
        }
    });
}
