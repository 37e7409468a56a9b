//! `http_diff plain|wrapped`: the same script of requests (statuses, headers, bodies,
//! streamed and empty, a refused connection) against an axum server and through
//! reqwest 0.13, 0.12 and ureq 3 clients, either plain or with `axum!` and `http!`.
//! Prints one line per result; the two logs must be byte-identical.
use std::fmt::Write as _;
use std::time::Duration;

use axum::routing::{get, post};

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

async fn stream() -> axum::body::Body {
    let chunks = futures_util::stream::iter(
        (0..5u8).map(|i| Ok::<_, std::convert::Infallible>(bytes::Bytes::from(vec![b'a' + i; 3]))),
    );
    axum::body::Body::from_stream(chunks)
}

async fn empty() -> axum::http::StatusCode {
    axum::http::StatusCode::NO_CONTENT
}

async fn slow() -> &'static str {
    tokio::time::sleep(Duration::from_millis(5)).await;
    "late"
}

fn main() {
    let wrapped = std::env::args().nth(1).as_deref() == Some("wrapped");
    let _guard = wrapped.then(|| {
        hotpath::HotpathGuardBuilder::new("http_diff")
            .format(hotpath::Format::None)
            .build()
    });
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let log = rt.block_on(async move {
        let app = axum::Router::new()
            .route("/echo", post(echo))
            .route("/stream", get(stream))
            .route("/empty", get(empty))
            .route("/slow", get(slow));
        let app = if wrapped {
            hotpath::axum!(app)
        } else {
            app.layer(tower_layer::Identity::new())
        };
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        let mut log = String::new();
        let refused = format!("http://127.0.0.1:{}/x", hotpath_service_tests::free_port());
        let paths = ["/echo", "/stream", "/empty", "/slow", "/missing?q=1"];

        let c13 = reqwest_013::Client::new();
        let c13w = hotpath::http!(reqwest_013::Client::new());
        for p in paths {
            let url = format!("{base}{p}");
            let r = if wrapped {
                c13w.post(&url)
                    .body("hello")
                    .send()
                    .await
                    .map_err(|e| e.to_string())
            } else {
                c13.post(&url)
                    .body("hello")
                    .send()
                    .await
                    .map_err(|e| e.to_string())
            };
            let r = r.unwrap();
            let status = r.status().as_u16();
            let h = r
                .headers()
                .get("x-echo")
                .map(|v| v.to_str().unwrap().to_string());
            let b = r.text().await.unwrap();
            writeln!(log, "reqwest13 POST {p} {status} {h:?} {b:?}").unwrap();
            let r = if wrapped {
                c13w.get(&url).send().await.unwrap()
            } else {
                c13.get(&url).send().await.unwrap()
            };
            writeln!(
                log,
                "reqwest13 GET {p} {} {:?}",
                r.status().as_u16(),
                r.bytes().await.unwrap()
            )
            .unwrap();
        }
        let e = if wrapped {
            c13w.get(&refused).send().await.is_err()
        } else {
            c13.get(&refused).send().await.is_err()
        };
        writeln!(log, "reqwest13 refused error={e}").unwrap();

        let c12 = reqwest_012::Client::new();
        let c12w = hotpath::http!(reqwest_012::Client::new());
        for p in paths {
            let url = format!("{base}{p}");
            let r = if wrapped {
                c12w.get(&url).send().await.unwrap()
            } else {
                c12.get(&url).send().await.unwrap()
            };
            writeln!(
                log,
                "reqwest12 GET {p} {} {:?}",
                r.status().as_u16(),
                r.bytes().await.unwrap()
            )
            .unwrap();
        }

        let b2 = base.clone();
        let ulog = tokio::task::spawn_blocking(move || {
            let agent: ureq::Agent = if wrapped {
                hotpath::http!(ureq::Agent::config_builder()).build().into()
            } else {
                ureq::Agent::config_builder().build().into()
            };
            let mut log = String::new();
            for p in paths {
                match agent.get(format!("{b2}{p}")).call() {
                    Ok(mut r) => writeln!(
                        log,
                        "ureq GET {p} {} {:?}",
                        r.status().as_u16(),
                        r.body_mut().read_to_string().unwrap()
                    )
                    .unwrap(),
                    Err(e) => writeln!(log, "ureq GET {p} error {e}").unwrap(),
                }
            }
            let e = agent.get(&refused).call().is_err();
            writeln!(log, "ureq refused error={e}").unwrap();
            log
        })
        .await
        .unwrap();
        log.push_str(&ulog);
        log
    });
    print!("{log}");
}
