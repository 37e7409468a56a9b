//! `sql_sqlx pg URL | sqlite PATH | sqlite-filtered PATH`: sqlx against a real server or
//! file, with known numbers:
//! - `insert_rows`: 100 × `INSERT INTO t (a) VALUES ($1)` (`?1` for SQLite);
//! - `select_all`: `SELECT a FROM t`, 100 rows;
//! - `list_users`: 1 list query and 5 detail queries (N + 1 with N = 5), called 4 times;
//! - `slow` (PostgreSQL): 3 × `SELECT pg_sleep(0.05)`;
//! - `in_lists`: `WHERE a IN (1, 2, 3)` and `WHERE a IN (4, 5)`.
//!
//! `sqlite-filtered` installs a global INFO filter above the layer: no event arrives.
use sqlx::Row;

/// The scenario's own SQL text (no user input).
fn safe(sql: &str) -> sqlx::AssertSqlSafe<String> {
    sqlx::AssertSqlSafe(sql.to_string())
}
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

enum Db {
    Pg(sqlx::PgPool),
    Lite(sqlx::SqlitePool),
}

impl Db {
    fn ph(&self, n: u32) -> String {
        match self {
            Db::Pg(_) => format!("${n}"),
            Db::Lite(_) => format!("?{n}"),
        }
    }

    async fn exec(&self, sql: &str) {
        match self {
            Db::Pg(p) => {
                sqlx::query(safe(sql)).execute(p).await.unwrap();
            }
            Db::Lite(p) => {
                sqlx::query(safe(sql)).execute(p).await.unwrap();
            }
        }
    }

    async fn exec_i(&self, sql: &str, v: i32) {
        match self {
            Db::Pg(p) => {
                sqlx::query(safe(sql)).bind(v).execute(p).await.unwrap();
            }
            Db::Lite(p) => {
                sqlx::query(safe(sql)).bind(v).execute(p).await.unwrap();
            }
        }
    }

    async fn ints(&self, sql: &str, bind: Option<i32>) -> Vec<i32> {
        match self {
            Db::Pg(p) => {
                let mut q = sqlx::query(safe(sql));
                if let Some(b) = bind {
                    q = q.bind(b);
                }
                q.fetch_all(p)
                    .await
                    .unwrap()
                    .iter()
                    .map(|r| r.get(0))
                    .collect()
            }
            Db::Lite(p) => {
                let mut q = sqlx::query(safe(sql));
                if let Some(b) = bind {
                    q = q.bind(b);
                }
                q.fetch_all(p)
                    .await
                    .unwrap()
                    .iter()
                    .map(|r| r.get(0))
                    .collect()
            }
        }
    }
}

#[hotpath::measure]
async fn insert_rows(db: &Db) {
    let sql = format!("INSERT INTO t (a) VALUES ({})", db.ph(1));
    for i in 0..100 {
        db.exec_i(&sql, i).await;
    }
}

#[hotpath::measure]
async fn select_all(db: &Db) -> usize {
    db.ints("SELECT a FROM t", None).await.len()
}

#[hotpath::measure]
async fn list_users(db: &Db) -> usize {
    let ids = db.ints("SELECT id FROM users ORDER BY id", None).await;
    let detail = format!("SELECT id FROM users WHERE id = {}", db.ph(1));
    let mut n = 0;
    for id in ids {
        n += db.ints(&detail, Some(id)).await.len();
    }
    n
}

#[hotpath::measure]
async fn slow(db: &Db) {
    for _ in 0..3 {
        db.exec("SELECT pg_sleep(0.05)").await;
    }
}

#[hotpath::measure]
async fn in_lists(db: &Db) {
    db.ints("SELECT a FROM t WHERE a IN (1, 2, 3)", None).await;
    db.ints("SELECT a FROM t WHERE a IN (4, 5)", None).await;
}

#[hotpath::main]
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (mode, target) = (args[1].as_str(), args[2].clone());
    if mode == "sqlite-filtered" {
        tracing_subscriber::registry()
            .with(tracing_subscriber::filter::LevelFilter::INFO)
            .with(hotpath::sqlx_tracing_layer())
            .init();
    } else {
        tracing_subscriber::registry()
            .with(hotpath::sqlx_tracing_layer())
            .init();
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let db = match mode {
            "pg" => Db::Pg(
                sqlx::postgres::PgPoolOptions::new()
                    .max_connections(1)
                    .connect(&target)
                    .await
                    .unwrap(),
            ),
            _ => Db::Lite(
                sqlx::sqlite::SqlitePoolOptions::new()
                    .max_connections(1)
                    .connect_with(
                        sqlx::sqlite::SqliteConnectOptions::new()
                            .filename(&target)
                            .create_if_missing(true),
                    )
                    .await
                    .unwrap(),
            ),
        };
        db.exec("CREATE TABLE t (a INTEGER)").await;
        db.exec("CREATE TABLE users (id INTEGER)").await;
        db.exec("INSERT INTO users (id) VALUES (1), (2), (3), (4), (5)")
            .await;
        insert_rows(&db).await;
        eprintln!("rows={}", select_all(&db).await);
        for _ in 0..4 {
            list_users(&db).await;
        }
        if matches!(db, Db::Pg(_)) {
            slow(&db).await;
        }
        in_lists(&db).await;
    });
}
