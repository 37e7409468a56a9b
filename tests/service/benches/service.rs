//! What a SQL query and an HTTP request cost in profiler work (issue 13 item 8).
//!
//! ```text
//! cargo bench -p hotpath-service-tests --bench service
//! ```
//!
//! - `sql_event/{bare,layer}`: one `sqlx::query` event with sqlx's fields (a 60-byte
//!   statement, rows, `elapsed_secs`), dispatched to a registry without and with
//!   `hotpath::sqlx_tracing_layer()`, inside a measured function: the difference is
//!   the layer's work per query (hash of the statement, cache lookup, slot update,
//!   charging the function).
//! - `server/{bare,layer}`: one request through a tower service that answers a
//!   one-chunk body at once, called and its body polled to the end, without and with
//!   `HttpServerLayer`: the difference is the server layer's work per request.
//! - `client/{bare,noop_middleware,http}`: one GET to an axum server on loopback through
//!   a reqwest 0.13 client, plain, through reqwest-middleware with a middleware that only
//!   forwards, and with `http!`: `http` − `noop_middleware` is hotpath's work per
//!   request, `noop_middleware` − `bare` what reqwest-middleware itself costs.
//! - `client_stub/{reqwest_noop,reqwest_http,ureq_bare,ureq_http}`: the same without a
//!   network (a middleware at the end of the chain answers at once), so the difference
//!   is not lost in the noise of a loopback request; `..._read` cases also read the body,
//!   `reqwest_http_bodies_read` with body timing (`http!(client, body = true)`).
use std::convert::Infallible;
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use http_body_util::BodyExt;
use tower_layer::Layer;
use tower_service::Service;
use tracing_subscriber::layer::SubscriberExt;

fn sql_event() {
    tracing::event!(
        target: "sqlx::query",
        tracing::Level::DEBUG,
        summary = "select id, name from …",
        db.statement = "\n\nselect id, name from users where id = $1 and active = true\n",
        rows_affected = 0u64,
        rows_returned = 1u64,
        elapsed = ?std::time::Duration::from_micros(50),
        elapsed_secs = 0.00005f64,
    );
}

#[hotpath::measure]
fn issue_query() {
    sql_event();
}

fn sql(c: &mut Criterion) {
    let mut g = c.benchmark_group("sql_event");
    let bare = tracing_subscriber::registry();
    tracing::subscriber::with_default(bare, || {
        g.bench_function("bare", |b| b.iter(issue_query));
    });
    let with = tracing_subscriber::registry().with(hotpath::sqlx_tracing_layer());
    tracing::subscriber::with_default(with, || {
        g.bench_function("layer", |b| b.iter(issue_query));
    });
    g.finish();
}

fn server(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let svc = tower::service_fn(|_req: http::Request<()>| async {
        Ok::<_, Infallible>(http::Response::new(http_body_util::Full::new(
            bytes::Bytes::from_static(b"hello"),
        )))
    });
    let mut g = c.benchmark_group("server");
    let mut bare = svc;
    g.bench_function("bare", |b| {
        b.iter(|| {
            rt.block_on(async {
                let r = bare
                    .call(http::Request::get("/users/1").body(()).unwrap())
                    .await
                    .unwrap();
                black_box(r.into_body().collect().await.unwrap());
            })
        })
    });
    let mut wrapped = hotpath::HttpServerLayer::new().layer(svc);
    g.bench_function("layer", |b| {
        b.iter(|| {
            rt.block_on(async {
                let r = wrapped
                    .call(http::Request::get("/users/1").body(()).unwrap())
                    .await
                    .unwrap();
                black_box(r.into_body().collect().await.unwrap());
            })
        })
    });
    g.finish();
}

/// A middleware that only forwards the request.
struct Noop;

#[async_trait::async_trait]
impl reqwest_middleware_05::Middleware for Noop {
    async fn handle(
        &self,
        req: reqwest_013::Request,
        extensions: &mut http::Extensions,
        next: reqwest_middleware_05::Next<'_>,
    ) -> reqwest_middleware_05::Result<reqwest_013::Response> {
        next.run(req, extensions).await
    }
}

fn client(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let base = rt.block_on(async {
        let app = axum::Router::new().route("/users/{id}", axum::routing::get(|| async { "ok" }));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        base
    });
    let url = format!("{base}/users/7");
    let mut g = c.benchmark_group("client");
    let bare = reqwest_013::Client::new();
    g.bench_function("bare", |b| {
        b.iter(|| {
            rt.block_on(async {
                black_box(bare.get(&url).send().await.unwrap().bytes().await.unwrap())
            })
        })
    });
    let noop = reqwest_middleware_05::ClientBuilder::new(reqwest_013::Client::new())
        .with(Noop)
        .build();
    g.bench_function("noop_middleware", |b| {
        b.iter(|| {
            rt.block_on(async {
                black_box(noop.get(&url).send().await.unwrap().bytes().await.unwrap())
            })
        })
    });
    let wrapped = hotpath::http!(reqwest_013::Client::new());
    g.bench_function("http", |b| {
        b.iter(|| {
            rt.block_on(async {
                black_box(
                    wrapped
                        .get(&url)
                        .send()
                        .await
                        .unwrap()
                        .bytes()
                        .await
                        .unwrap(),
                )
            })
        })
    });
    g.finish();
}

/// The end of a middleware chain that answers without a network: `ok`, status 200.
struct Stub;

#[async_trait::async_trait]
impl reqwest_middleware_05::Middleware for Stub {
    async fn handle(
        &self,
        _req: reqwest_013::Request,
        _extensions: &mut http::Extensions,
        _next: reqwest_middleware_05::Next<'_>,
    ) -> reqwest_middleware_05::Result<reqwest_013::Response> {
        Ok(http::Response::new("ok").into())
    }
}

/// The clients' own work per request, no network: a chain ending in a middleware that
/// answers at once, with a forwarding middleware (`noop`) or hotpath's (`http`) before
/// it (reqwest 0.13); ureq 3 with the answering middleware alone (`bare`) or after
/// hotpath's (`http`). The differences are hotpath's work per request.
fn client_stub(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let mut g = c.benchmark_group("client_stub");
    let url = "http://127.0.0.1:9/users/7";
    // Each client sends, and with `read` also reads the body to its end; `bodies`: with
    // body timing (the response re-wrapped, its end recorded).
    let chain = |hotpath_mw: Option<hotpath::ReqwestHttpMiddleware>| {
        let b = reqwest_middleware_05::ClientBuilder::new(reqwest_013::Client::new());
        match hotpath_mw {
            Some(m) => b.with(m),
            None => b.with(Noop),
        }
        .with(Stub)
        .build()
    };
    for (name, client, read) in [
        ("reqwest_noop", chain(None), false),
        (
            "reqwest_http",
            chain(Some(hotpath::ReqwestHttpMiddleware::new())),
            false,
        ),
        ("reqwest_noop_read", chain(None), true),
        (
            "reqwest_http_read",
            chain(Some(hotpath::ReqwestHttpMiddleware::new())),
            true,
        ),
        (
            "reqwest_http_bodies_read",
            chain(Some(hotpath::ReqwestHttpMiddleware::new().time_bodies())),
            true,
        ),
    ] {
        g.bench_function(name, |b| {
            b.iter(|| {
                rt.block_on(async {
                    let r = client.get(url).send().await.unwrap();
                    if read {
                        black_box(r.bytes().await.unwrap());
                    } else {
                        black_box(r);
                    }
                })
            })
        });
    }
    let stub = |_: http::Request<ureq::SendBody>, _: ureq::middleware::MiddlewareNext| {
        Ok(http::Response::new(ureq::Body::builder().data("ok")))
    };
    let bare: ureq::Agent = ureq::Agent::config_builder()
        .middleware(stub)
        .build()
        .into();
    let wrapped: ureq::Agent = hotpath::http!(ureq::Agent::config_builder())
        .middleware(stub)
        .build()
        .into();
    for (name, agent) in [("ureq_bare", bare), ("ureq_http", wrapped)] {
        g.bench_function(name, |b| {
            b.iter(|| black_box(agent.get(url).call().unwrap()))
        });
    }
    g.finish();
}

fn all(c: &mut Criterion) {
    let _guard = hotpath::HotpathGuardBuilder::new("bench")
        .format(hotpath::Format::None)
        .build();
    sql(c);
    server(c);
    client_stub(c);
    client(c);
}

criterion_group!(benches, all);
criterion_main!(benches);
