//! `diesel_diff plain|wrapped PATH [REPORT]`: one seeded script of diesel statements on
//! a SQLite file (inserts that may hit the primary key, updates, deletes, reads, a
//! failing query, transactions committed and rolled back), with the program's own
//! default instrumentation logging every event it receives. Plain: that instrumentation
//! alone; wrapped: `hotpath::instrument_diesel_sql()` installed after it and every
//! statement issued from a measured function. Prints one line per result and per event
//! the program's instrumentation saw: the two logs must be byte-identical. On stderr,
//! `statements=N errors=E`, for the wrapped run's report (JSON in REPORT).
use std::sync::Mutex;

use diesel::connection::{Instrumentation, InstrumentationEvent, SimpleConnection};
use diesel::prelude::*;
use diesel::sql_types::BigInt;

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
    Bad,
    Tx { commit: bool, k: i64, v: i64 },
}

fn script(seed: u64, n: usize) -> Vec<Op> {
    let mut r = Rng(seed);
    let k = |r: &mut Rng| r.next(12) as i64;
    (0..n)
        .map(|_| match r.next(12) {
            0..=3 => Op::Insert(k(&mut r), r.next(1000) as i64),
            4..=5 => Op::Update(k(&mut r), r.next(1000) as i64),
            6 => Op::Delete(k(&mut r)),
            7..=8 => Op::Get(k(&mut r)),
            9 => Op::Bad,
            _ => Op::Tx {
                commit: r.next(2) == 0,
                k: k(&mut r),
                v: r.next(1000) as i64,
            },
        })
        .collect()
}

/// What the program's own instrumentation saw, in order.
static EVENTS: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// The program's own default instrumentation: logs every event (the database path
/// left out: the two runs use two files).
fn user_instrumentation() -> Option<Box<dyn Instrumentation>> {
    Some(Box::new(|event: InstrumentationEvent<'_>| {
        let line = match &event {
            InstrumentationEvent::StartEstablishConnection { .. } => "connecting".to_string(),
            InstrumentationEvent::FinishEstablishConnection { error, .. } => {
                format!("connected error={}", error.is_some())
            }
            InstrumentationEvent::StartQuery { query, .. } => format!("start {query}"),
            InstrumentationEvent::CacheQuery { sql, .. } => format!("cache {sql}"),
            InstrumentationEvent::FinishQuery { query, error, .. } => {
                format!("finish {query} error={error:?}")
            }
            InstrumentationEvent::BeginTransaction { depth, .. } => format!("begin {depth}"),
            InstrumentationEvent::CommitTransaction { depth, .. } => format!("commit {depth}"),
            InstrumentationEvent::RollbackTransaction { depth, .. } => {
                format!("rollback {depth}")
            }
            other => format!("{other:?}"),
        };
        EVENTS.lock().unwrap().push(line);
    }))
}

#[derive(QueryableByName)]
struct V {
    #[diesel(sql_type = BigInt)]
    v: i64,
}

#[derive(Default)]
struct Tally {
    statements: u64,
    errors: u64,
}

fn show<T: std::fmt::Debug>(r: &QueryResult<T>) -> String {
    match r {
        Ok(v) => format!("ok {v:?}"),
        Err(e) => format!("error {e}"),
    }
}

#[hotpath::measure]
fn step(conn: &mut SqliteConnection, op: Op, t: &mut Tally) -> String {
    t.statements += 1;
    let insert = |c: &mut SqliteConnection, k: i64, v: i64| {
        diesel::sql_query("INSERT INTO kv (k, v) VALUES (?, ?)")
            .bind::<BigInt, _>(k)
            .bind::<BigInt, _>(v)
            .execute(c)
    };
    let line = match op {
        Op::Insert(k, v) => {
            let r = insert(conn, k, v);
            t.errors += r.is_err() as u64;
            show(&r)
        }
        Op::Update(k, v) => show(
            &diesel::sql_query("UPDATE kv SET v = ? WHERE k = ?")
                .bind::<BigInt, _>(v)
                .bind::<BigInt, _>(k)
                .execute(conn),
        ),
        Op::Delete(k) => show(
            &diesel::sql_query("DELETE FROM kv WHERE k = ?")
                .bind::<BigInt, _>(k)
                .execute(conn),
        ),
        Op::Get(k) => show(
            &diesel::sql_query("SELECT v FROM kv WHERE k = ?")
                .bind::<BigInt, _>(k)
                .load::<V>(conn)
                .map(|rows| rows.into_iter().map(|r| r.v).collect::<Vec<_>>()),
        ),
        Op::Bad => {
            let r = diesel::sql_query("SELECT no_such_column FROM kv").execute(conn);
            t.errors += r.is_err() as u64;
            show(&r)
        }
        Op::Tx { commit, k, v } => {
            let mut failed = false;
            let r = conn.transaction::<_, diesel::result::Error, _>(|c| {
                let n = insert(c, k, v);
                failed = n.is_err();
                let n = n?;
                if commit {
                    Ok(n)
                } else {
                    Err(diesel::result::Error::RollbackTransaction)
                }
            });
            t.errors += failed as u64;
            show(&r)
        }
    };
    let events = std::mem::take(&mut *EVENTS.lock().unwrap());
    format!("{line}\n  {}", events.join("\n  "))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let wrapped = args[1] == "wrapped";
    let _guard = wrapped.then(|| {
        let b =
            hotpath::HotpathGuardBuilder::new("diesel_diff::main").format(hotpath::Format::Json);
        match args.get(3) {
            Some(path) => b.output_path(path),
            None => b.format(hotpath::Format::None),
        }
        .build()
    });
    diesel::connection::set_default_instrumentation(user_instrumentation).unwrap();
    if wrapped {
        hotpath::instrument_diesel_sql().unwrap();
    }
    let mut conn = SqliteConnection::establish(&args[2]).unwrap();
    conn.batch_execute("CREATE TABLE kv (k BIGINT PRIMARY KEY, v BIGINT NOT NULL)")
        .unwrap();
    println!("setup\n  {}", EVENTS.lock().unwrap().join("\n  "));
    EVENTS.lock().unwrap().clear();
    let mut t = Tally::default();
    for (i, op) in script(0xD1E5_E15EED, 200).into_iter().enumerate() {
        println!("{i} {op:?} {}", step(&mut conn, op, &mut t));
    }
    eprintln!("statements={} errors={}", t.statements, t.errors);
}
