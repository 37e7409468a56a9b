//! `async_allocs on|off SCENARIO N ARG`: the allocations a program is charged for by
//! hotpath's sqlx layer, reqwest middleware and axum layer. With `on` the integration is
//! installed; with `off` the same program runs without it, which the test compares with.
//! Each measured function runs `N` times on a current-thread tokio runtime.
//!
//! - `sqlx-pg URL`: `sqlx_query_pg` blocks on `sqlx_execute_pg`, an `async fn` running an
//!   insert whose text differs at each call (a new text for hotpath to look up and
//!   normalise, a new statement for sqlx to prepare) on one PostgreSQL connection, whose
//!   statements run and are logged in the caller's poll. `on`: a tracing registry with
//!   `hotpath::sqlx_tracing_layer()`; `off`: the same registry with [`Enabling`], a layer
//!   that does nothing and enables every event as hotpath's does. The work around each
//!   poll of `sqlx_execute_pg` (the poll hook: its `hotpath` span entered and left) runs
//!   inside `sqlx_query_pg`'s calls.
//! - `reqwest-012`, `reqwest-013`: `reqwest_get` makes a `GET /users/<i>` (a new URL of one
//!   endpoint) to a loopback server of this program and reads the body. `on`: the client is
//!   `http!(reqwest::Client::new())`; `off`: the plain `reqwest::Client`.
//! - `axum` (ARG unused): an axum server on loopback whose measured handler `user` answers
//!   `GET /users/{id}`; a plain reqwest client requests `/users/<i>`. `on`: the router
//!   with `hotpath::axum!`; `off`: without.
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;

use sqlx::Connection;
use tokio::runtime::Runtime;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// A layer that does nothing, every callsite enabled (the `Layer` defaults) as with
/// hotpath's layer. sqlx formats the statement it logs (its summary and text) only when a
/// subscriber enables its `sqlx::query` events, in the program's poll, whoever listens:
/// here 6 allocations a statement, sqlx's work for any subscriber, in both runs.
struct Enabling;

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Enabling {}

#[hotpath::measure]
async fn sqlx_execute_pg(conn: &mut sqlx::PgConnection, sql: String) -> u64 {
    sqlx::query(sqlx::AssertSqlSafe(sql))
        .execute(conn)
        .await
        .unwrap()
        .rows_affected()
}

#[hotpath::measure]
fn sqlx_query_pg(rt: &Runtime, conn: &mut sqlx::PgConnection, sql: String) -> u64 {
    rt.block_on(sqlx_execute_pg(conn, sql))
}

fn sqlx_pg(rt: &Runtime, url: &str, n: u64) {
    let mut conn = rt.block_on(async {
        let mut conn = sqlx::PgConnection::connect(url).await.unwrap();
        // A table of this session: the `on` and `off` runs may share the server.
        sqlx::query("CREATE TEMPORARY TABLE t (a INTEGER)")
            .execute(&mut conn)
            .await
            .unwrap();
        conn
    });
    for i in 0..n {
        let sql = format!("INSERT INTO t (a) VALUES ({i})");
        assert_eq!(sqlx_query_pg(rt, &mut conn, sql), 1);
    }
}

enum Client012 {
    Plain(reqwest_012::Client),
    Hotpath(reqwest_middleware_04::ClientWithMiddleware),
}

enum Client013 {
    Plain(reqwest_013::Client),
    Hotpath(reqwest_middleware_05::ClientWithMiddleware),
}

#[hotpath::measure]
async fn reqwest_get_012(client: &Client012, url: &str) -> usize {
    let resp = match client {
        Client012::Plain(c) => c.get(url).send().await.unwrap(),
        Client012::Hotpath(c) => c.get(url).send().await.unwrap(),
    };
    resp.bytes().await.unwrap().len()
}

#[hotpath::measure]
async fn reqwest_get_013(client: &Client013, url: &str) -> usize {
    let resp = match client {
        Client013::Plain(c) => c.get(url).send().await.unwrap(),
        Client013::Hotpath(c) => c.get(url).send().await.unwrap(),
    };
    resp.bytes().await.unwrap().len()
}

/// Lets the tasks hyper spawned for the last request (the connection's return to the
/// pool) run before the next request, so that it finds the idle connection in both runs.
async fn settle() {
    for _ in 0..8 {
        tokio::task::yield_now().await;
    }
}

/// A keep-alive HTTP/1.1 server on 127.0.0.1 answering every request `200 ok`, on a
/// thread of its own; its address.
fn serve() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let mut stream = stream.unwrap();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                loop {
                    line.clear();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    if line == "\r\n" {
                        let ok = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok";
                        if stream.write_all(ok).is_err() {
                            return;
                        }
                    }
                }
            });
        }
    });
    format!("http://{addr}")
}

#[hotpath::measure]
async fn user(axum::extract::Path(id): axum::extract::Path<u32>) -> String {
    format!("user {id}")
}

async fn axum_server(on: bool, n: u64) {
    let app = axum::Router::new().route("/users/{id}", axum::routing::get(user));
    let app = if on { hotpath::axum!(app) } else { app };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let client = reqwest_013::Client::new();
    for i in 0..n {
        let url = format!("{base}/users/{i}");
        let body = client.get(&url).send().await.unwrap().text().await.unwrap();
        assert_eq!(body, format!("user {i}"));
        settle().await;
    }
}

#[hotpath::main]
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let on = args[1] == "on";
    let scenario = args[2].as_str();
    let n: u64 = args[3].parse().unwrap();
    let arg = args.get(4).map(String::as_str).unwrap_or("");
    if scenario == "sqlx-pg" {
        if on {
            tracing_subscriber::registry()
                .with(hotpath::sqlx_tracing_layer())
                .init();
        } else {
            tracing_subscriber::registry().with(Enabling).init();
        }
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    if scenario == "sqlx-pg" {
        return sqlx_pg(&rt, arg, n);
    }
    rt.block_on(async {
        match scenario {
            "reqwest-012" => {
                let base = serve();
                let client = if on {
                    Client012::Hotpath(hotpath::http!(reqwest_012::Client::new()))
                } else {
                    Client012::Plain(reqwest_012::Client::new())
                };
                for i in 0..n {
                    let url = format!("{base}/users/{i}");
                    assert_eq!(reqwest_get_012(&client, &url).await, 2);
                    settle().await;
                }
            }
            "reqwest-013" => {
                let base = serve();
                let client = if on {
                    Client013::Hotpath(hotpath::http!(reqwest_013::Client::new()))
                } else {
                    Client013::Plain(reqwest_013::Client::new())
                };
                for i in 0..n {
                    let url = format!("{base}/users/{i}");
                    assert_eq!(reqwest_get_013(&client, &url).await, 2);
                    settle().await;
                }
            }
            "axum" => axum_server(on, n).await,
            other => panic!("unknown scenario {other}"),
        }
    });
}
