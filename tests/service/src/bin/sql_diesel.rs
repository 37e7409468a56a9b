//! `sql_diesel PATH`: diesel on a SQLite file, with the program's own default
//! instrumentation installed first (it counts `StartQuery` events and prints the count
//! as `user_start_queries=N`): `insert50` makes 50 inserts, `broken` one query on a
//! missing table, `in_transaction` one insert inside a transaction, and a `tracing`
//! span `select_in_span` (through `hotpath::tracing::layer()`) 7 selects.
use std::sync::atomic::{AtomicU64, Ordering};

use diesel::connection::{Instrumentation, InstrumentationEvent, SimpleConnection};
use diesel::prelude::*;
use diesel::sql_types::Integer;

static USER_STARTS: AtomicU64 = AtomicU64::new(0);

fn user_instrumentation() -> Option<Box<dyn Instrumentation>> {
    Some(Box::new(|event: InstrumentationEvent<'_>| {
        if let InstrumentationEvent::StartQuery { .. } = event {
            USER_STARTS.fetch_add(1, Ordering::Relaxed);
        }
    }))
}

#[hotpath::measure]
fn insert50(conn: &mut SqliteConnection) {
    for i in 0..50 {
        diesel::sql_query("INSERT INTO t (a) VALUES (?)")
            .bind::<Integer, _>(i)
            .execute(conn)
            .unwrap();
    }
}

#[hotpath::measure]
fn broken(conn: &mut SqliteConnection) -> bool {
    diesel::sql_query("SELECT a FROM missing_table WHERE a = 1")
        .execute(conn)
        .is_err()
}

#[hotpath::measure]
fn in_transaction(conn: &mut SqliteConnection) {
    conn.transaction::<_, diesel::result::Error, _>(|c| {
        diesel::sql_query("INSERT INTO t (a) VALUES (?)")
            .bind::<Integer, _>(1000)
            .execute(c)?;
        Ok(())
    })
    .unwrap();
}

#[hotpath::main]
fn main() {
    use tracing_subscriber::layer::SubscriberExt;
    let subscriber = tracing_subscriber::registry().with(hotpath::tracing::layer());
    tracing::subscriber::set_global_default(subscriber).unwrap();
    let path = std::env::args().nth(1).unwrap();
    diesel::connection::set_default_instrumentation(user_instrumentation).unwrap();
    hotpath::instrument_diesel_sql().unwrap();
    let mut conn = SqliteConnection::establish(&path).unwrap();
    conn.batch_execute("CREATE TABLE t (a INTEGER)").unwrap();
    insert50(&mut conn);
    assert!(broken(&mut conn));
    in_transaction(&mut conn);
    // A span is the innermost measured scope while entered: its queries are its rows.
    tracing::info_span!("select_in_span").in_scope(|| {
        for _ in 0..7 {
            diesel::sql_query("SELECT a FROM t WHERE a = 1")
                .execute(&mut conn)
                .unwrap();
        }
    });
    eprintln!("user_start_queries={}", USER_STARTS.load(Ordering::Relaxed));
}
