//! A small service, measured: an axum server whose handlers query SQLite through sqlx
//! (PostgreSQL when `DATABASE_URL` is set), called by a reqwest client wrapped with
//! `hotpath::http!`, on a tokio runtime registered with `hotpath::tokio_runtime!`. The
//! report at exit has the timing, alloc, sql, http, server and tokio sections side by
//! side.
//!
//! ```text
//! cargo run -p hotpath-service-tests --example service --features alloc
//! DATABASE_URL=postgres://... cargo run -p hotpath-service-tests --example service
//! ```
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Path, State};
use axum::routing::get;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

#[derive(Clone)]
enum Db {
    Lite(sqlx::SqlitePool),
    Pg(sqlx::PgPool),
}

fn sql(s: &str) -> sqlx::AssertSqlSafe<String> {
    sqlx::AssertSqlSafe(s.to_string())
}

impl Db {
    fn ph(&self) -> &'static str {
        match self {
            Db::Lite(_) => "?1",
            Db::Pg(_) => "$1",
        }
    }

    async fn execute(&self, q: &str, v: Option<i64>) {
        match self {
            Db::Lite(p) => {
                let mut q = sqlx::query(sql(q));
                if let Some(v) = v {
                    q = q.bind(v);
                }
                q.execute(p).await.unwrap();
            }
            Db::Pg(p) => {
                let mut q = sqlx::query(sql(q));
                if let Some(v) = v {
                    q = q.bind(v);
                }
                q.execute(p).await.unwrap();
            }
        }
    }

    async fn names(&self, q: &str, v: i64) -> Vec<String> {
        use sqlx::Row;
        match self {
            Db::Lite(p) => sqlx::query(sql(q))
                .bind(v)
                .fetch_all(p)
                .await
                .unwrap()
                .iter()
                .map(|r| r.get(0))
                .collect(),
            Db::Pg(p) => sqlx::query(sql(q))
                .bind(v)
                .fetch_all(p)
                .await
                .unwrap()
                .iter()
                .map(|r| r.get(0))
                .collect(),
        }
    }
}

#[hotpath::measure]
async fn load_user(db: &Db, id: i64) -> String {
    let q = format!("SELECT name FROM users WHERE id = {}", db.ph());
    db.names(&q, id)
        .await
        .into_iter()
        .next()
        .unwrap_or_default()
}

#[hotpath::measure]
async fn user(State(db): State<Arc<Db>>, Path(id): Path<i64>) -> String {
    let name = load_user(&db, id).await;
    // Some work that allocates.
    let greeting: Vec<String> = (0..50).map(|i| format!("{name}-{i}")).collect();
    greeting.join(",").len().to_string()
}

#[hotpath::measure]
async fn slow() -> &'static str {
    tokio::time::sleep(Duration::from_millis(20)).await;
    "slow"
}

/// A streamed body: 5 chunks 10 ms apart.
async fn feed() -> axum::body::Body {
    let chunks = futures_util::stream::unfold(0u32, |i| async move {
        if i == 5 {
            return None;
        }
        if i > 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let chunk = bytes::Bytes::from(format!("line {i}\n"));
        Some((Ok::<_, std::convert::Infallible>(chunk), i + 1))
    });
    axum::body::Body::from_stream(chunks)
}

#[hotpath::measure]
async fn client_run(base: &str) {
    // `body = true`: each response read to its end is timed to the end of its body too.
    let client = hotpath::http!(reqwest_013::Client::new(), body = true);
    for _ in 0..3 {
        let r = client.get(format!("{base}/feed")).send().await.unwrap();
        r.text().await.unwrap();
    }
    for id in 1..=40 {
        let r = client
            .get(format!("{base}/users/{id}"))
            .send()
            .await
            .unwrap();
        r.text().await.unwrap();
    }
    for _ in 0..5 {
        client.get(format!("{base}/slow")).send().await.unwrap();
    }
    client.get(format!("{base}/nowhere")).send().await.unwrap();
}

#[hotpath::main]
fn main() {
    tracing_subscriber::registry()
        .with(hotpath::sqlx_tracing_layer())
        .init();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    hotpath::tokio_runtime!(rt.handle());
    let dir = tempfile::tempdir().unwrap();
    rt.block_on(async {
        let db = match std::env::var("DATABASE_URL") {
            Ok(url) => Db::Pg(sqlx::PgPool::connect(&url).await.unwrap()),
            Err(_) => Db::Lite(
                sqlx::sqlite::SqlitePoolOptions::new()
                    .connect_with(
                        sqlx::sqlite::SqliteConnectOptions::new()
                            .filename(dir.path().join("service.db"))
                            .create_if_missing(true),
                    )
                    .await
                    .unwrap(),
            ),
        };
        db.execute(
            "CREATE TABLE IF NOT EXISTS users (id BIGINT, name TEXT)",
            None,
        )
        .await;
        let ins = format!("INSERT INTO users (id, name) VALUES ({}, 'user')", db.ph());
        for id in 1..=40 {
            db.execute(&ins, Some(id)).await;
        }
        let app = axum::Router::new()
            .route("/users/{id}", get(user))
            .route("/slow", get(slow))
            .route("/feed", get(feed))
            .with_state(Arc::new(db));
        let app = hotpath::axum!(app);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        client_run(&base).await;
    });
    std::mem::forget(rt);
}
