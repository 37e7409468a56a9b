//! `sql_diff plain|wrapped sqlite PATH | pg URL [REPORT]`: one seeded script of sqlx
//! statements (inserts that may hit the primary key, updates, deletes, point and range
//! reads, `IN` lists, a stream dropped after a few rows, a failing query, transactions
//! committed and rolled back), run plain (no layer, no profiling) or through
//! `hotpath::sqlx_tracing_layer()` with every statement issued from a measured
//! `async fn`. Prints one line per result on stdout: the two logs must be
//! byte-identical. On stderr, `statements=N rows=M streamed=S`: what the script ran,
//! read whole and took from streams, for the wrapped run's report (written as JSON to
//! REPORT) to be checked against.
use futures_util::TryStreamExt;
use sqlx::Row;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

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

#[derive(Clone, Copy, Debug)]
enum Op {
    Insert(i64, i64),
    Update(i64, i64),
    Delete(i64),
    Get(i64),
    Range(i64, i64),
    InList(i64, i64, i64),
    Stream(usize),
    Count,
    Bad,
    Tx { commit: bool, k: i64, v: i64 },
}

/// The script: `n` operations on keys 0..16 (so inserts meet existing keys).
fn script(seed: u64, n: usize) -> Vec<Op> {
    let mut r = Rng(seed);
    let k = |r: &mut Rng| r.next(16) as i64;
    (0..n)
        .map(|_| match r.next(20) {
            0..=5 => Op::Insert(k(&mut r), r.next(1000) as i64),
            6..=7 => Op::Update(k(&mut r), r.next(1000) as i64),
            8 => Op::Delete(k(&mut r)),
            9..=11 => Op::Get(k(&mut r)),
            12 => {
                let a = k(&mut r);
                Op::Range(a, a + r.next(8) as i64)
            }
            13 => Op::InList(k(&mut r), k(&mut r), k(&mut r)),
            14 => Op::Stream(r.next(4) as usize),
            15 => Op::Count,
            16 => Op::Bad,
            _ => Op::Tx {
                commit: r.next(2) == 0,
                k: k(&mut r),
                v: r.next(1000) as i64,
            },
        })
        .collect()
}

enum Db {
    Pg(sqlx::PgPool),
    Lite(sqlx::SqlitePool),
}

/// Runs `$body` with `$p` bound to the pool, whichever database it is.
macro_rules! on_pool {
    ($db:expr, |$p:ident| $body:expr) => {
        match $db {
            Db::Pg($p) => $body,
            Db::Lite($p) => $body,
        }
    };
}

/// The scenario's own SQL text (no user input), with SQLite's placeholders.
fn sql(db: &Db, text: &str) -> sqlx::AssertSqlSafe<String> {
    sqlx::AssertSqlSafe(match db {
        Db::Pg(_) => text.to_string(),
        Db::Lite(_) => text.replace('$', "?"),
    })
}

/// What a result prints as: the value, or the error's message.
fn show<T: std::fmt::Debug>(r: Result<T, sqlx::Error>) -> String {
    match r {
        Ok(v) => format!("ok {v:?}"),
        Err(e) => format!("error {e}"),
    }
}

/// Counts of what the script did, for the report's ground truth.
#[derive(Default)]
struct Tally {
    statements: u64,
    /// Rows read by `fetch_all`, `fetch_optional` and `fetch_one`.
    rows: u64,
    /// Rows taken from streams dropped before their end.
    streamed: u64,
}

#[hotpath::measure]
async fn step(db: &Db, op: Op, t: &mut Tally) -> String {
    // A stream never polled never runs its query.
    t.statements += u64::from(!matches!(op, Op::Stream(0)));
    match op {
        Op::Insert(k, v) => show(on_pool!(db, |p| sqlx::query(sql(
            db,
            "INSERT INTO kv (k, v) VALUES ($1, $2)"
        ))
        .bind(k)
        .bind(v)
        .execute(p)
        .await
        .map(|r| r.rows_affected()))),
        Op::Update(k, v) => show(on_pool!(db, |p| sqlx::query(sql(
            db,
            "UPDATE kv SET v = $2 WHERE k = $1"
        ))
        .bind(k)
        .bind(v)
        .execute(p)
        .await
        .map(|r| r.rows_affected()))),
        Op::Delete(k) => show(on_pool!(db, |p| sqlx::query(sql(
            db,
            "DELETE FROM kv WHERE k = $1"
        ))
        .bind(k)
        .execute(p)
        .await
        .map(|r| r.rows_affected()))),
        Op::Get(k) => {
            let r = on_pool!(db, |p| sqlx::query(sql(
                db,
                "SELECT v FROM kv WHERE k = $1"
            ))
            .bind(k)
            .fetch_optional(p)
            .await
            .map(|r| r.map(|r| r.get::<i64, _>(0))));
            t.rows += r.as_ref().map_or(0, |v| v.is_some() as u64);
            show(r)
        }
        Op::Range(a, b) => {
            let r = on_pool!(db, |p| sqlx::query(sql(
                db,
                "SELECT k, v FROM kv WHERE k BETWEEN $1 AND $2 ORDER BY k"
            ))
            .bind(a)
            .bind(b)
            .fetch_all(p)
            .await
            .map(|rows| rows
                .iter()
                .map(|r| (r.get::<i64, _>(0), r.get::<i64, _>(1)))
                .collect::<Vec<_>>()));
            t.rows += r.as_ref().map_or(0, |v| v.len() as u64);
            show(r)
        }
        Op::InList(a, b, c) => {
            let text = format!("SELECT k FROM kv WHERE k IN ({a}, {b}, {c}) ORDER BY k");
            let r = on_pool!(db, |p| sqlx::query(sql(db, &text))
                .fetch_all(p)
                .await
                .map(|rows| rows.iter().map(|r| r.get::<i64, _>(0)).collect::<Vec<_>>()));
            t.rows += r.as_ref().map_or(0, |v| v.len() as u64);
            show(r)
        }
        Op::Stream(n) => {
            // Read the first n rows, then drop the stream.
            let r = on_pool!(db, |p| {
                let mut s = sqlx::query(sql(db, "SELECT k FROM kv ORDER BY k")).fetch(p);
                let mut got = Vec::new();
                let mut result = Ok(());
                while got.len() < n {
                    match s.try_next().await {
                        Ok(Some(row)) => got.push(row.get::<i64, _>(0)),
                        Ok(None) => break,
                        Err(e) => {
                            result = Err(e);
                            break;
                        }
                    }
                }
                result.map(|()| got)
            });
            t.streamed += r.as_ref().map_or(0, |v| v.len() as u64);
            show(r)
        }
        Op::Count => {
            let r = on_pool!(db, |p| sqlx::query(sql(db, "SELECT COUNT(*) FROM kv"))
                .fetch_one(p)
                .await
                .map(|r| r.get::<i64, _>(0)));
            t.rows += r.is_ok() as u64;
            show(r)
        }
        Op::Bad => show(on_pool!(db, |p| sqlx::query(sql(
            db,
            "SELECT no_such_column FROM kv"
        ))
        .execute(p)
        .await
        .map(|r| r.rows_affected()))),
        Op::Tx { commit, k, v } => {
            let r = on_pool!(db, |p| async {
                let mut tx = p.begin().await?;
                let n = sqlx::query(sql(db, "INSERT INTO kv (k, v) VALUES ($1, $2)"))
                    .bind(k)
                    .bind(v)
                    .execute(&mut *tx)
                    .await
                    .map(|r| r.rows_affected());
                if commit && n.is_ok() {
                    tx.commit().await?;
                } else {
                    tx.rollback().await?;
                }
                Ok::<_, sqlx::Error>(n.map_err(|e| e.to_string()))
            }
            .await);
            show(r)
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let wrapped = args[1] == "wrapped";
    let (kind, target) = (args[2].clone(), args[3].clone());
    let _guard = wrapped.then(|| {
        let b = hotpath::HotpathGuardBuilder::new("sql_diff::main").format(hotpath::Format::Json);
        match args.get(4) {
            Some(path) => b.output_path(path),
            None => b.format(hotpath::Format::None),
        }
        .build()
    });
    if wrapped {
        tracing_subscriber::registry()
            .with(hotpath::sqlx_tracing_layer())
            .init();
    } else {
        tracing_subscriber::registry().init();
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let tally = rt.block_on(async {
        let db = match kind.as_str() {
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
        for setup in [
            "DROP TABLE IF EXISTS kv",
            "CREATE TABLE kv (k BIGINT PRIMARY KEY, v BIGINT NOT NULL)",
        ] {
            on_pool!(&db, |p| {
                sqlx::query(setup).execute(p).await.unwrap();
            });
        }
        let mut t = Tally::default();
        for (i, op) in script(0x5EED_5A1D, 300).into_iter().enumerate() {
            println!("{i} {op:?} {}", step(&db, op, &mut t).await);
        }
        on_pool!(db, |p| p.close().await);
        t
    });
    eprintln!(
        "statements={} rows={} streamed={}",
        tally.statements, tally.rows, tally.streamed
    );
}
