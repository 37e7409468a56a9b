//! The diesel front end: a default `Instrumentation` that times each query from
//! `StartQuery` to `FinishQuery` and counts `FinishQuery { error: Some(_) }` as a failed
//! query. Transaction control (`BEGIN`, `COMMIT`, `ROLLBACK`, `SAVEPOINT`, `RELEASE`) is
//! left out.
//!
//! diesel keeps one default instrumentation factory. The one a program set before
//! `instrument_diesel_sql()` keeps working: one instance of it is made when hotpath's is
//! installed, and every connection's hotpath instrumentation hands each event on to it.

use std::sync::Mutex;

use diesel::connection::{Instrumentation, InstrumentationEvent};
use hotpath_core::CallSite;

/// The program's own default instrumentation, made once when ours was installed.
static PREVIOUS: Mutex<Option<Box<dyn Instrumentation>>> = Mutex::new(None);

/// One connection's instrumentation.
struct Diesel {
    start: Option<(u64, Option<&'static CallSite>)>,
}

/// A new connection's instrumentation: the profiler's, allocated under `internal` (the
/// function that opens the connection is not charged for it). diesel frees it when the
/// connection is dropped, in its own code, where no hook of ours runs around the
/// deallocation: those bytes are counted as freed by whoever drops the connection.
fn factory() -> Option<Box<dyn Instrumentation>> {
    hotpath_core::internal(|| Some(Box::new(Diesel { start: None }) as Box<dyn Instrumentation>))
}

/// Installs hotpath's default instrumentation for connections made from now on, keeping
/// the program's previous default (if any) receiving every event.
pub(crate) fn install() -> diesel::QueryResult<()> {
    let previous = diesel::connection::get_default_instrumentation();
    if previous
        .as_ref()
        .is_some_and(|p| p.as_any().downcast_ref::<Diesel>().is_some())
    {
        // Installed already.
        return Ok(());
    }
    *PREVIOUS.lock().unwrap_or_else(|e| e.into_inner()) = previous;
    diesel::connection::set_default_instrumentation(factory)
}

fn forward(event: InstrumentationEvent<'_>) {
    if let Some(p) = PREVIOUS.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
        p.on_connection_event(event);
    }
}

/// The SQL of a query's `Display`, without diesel's ` -- binds: [...]`.
fn sql_text(q: &dyn std::fmt::Display) -> String {
    let mut s = q.to_string();
    if let Some(i) = s.find(" -- binds:") {
        s.truncate(i);
    }
    s
}

fn is_transaction_control(sql: &str) -> bool {
    let first = sql
        .trim_start()
        .split(|c: char| !c.is_ascii_alphabetic())
        .next()
        .unwrap_or("")
        .to_ascii_uppercase();
    matches!(
        first.as_str(),
        "BEGIN" | "COMMIT" | "ROLLBACK" | "SAVEPOINT" | "RELEASE" | "END"
    )
}

impl Instrumentation for Diesel {
    fn on_connection_event(&mut self, event: InstrumentationEvent<'_>) {
        match &event {
            InstrumentationEvent::StartQuery { .. } => {
                self.start = Some((hotpath_core::op::now(), super::innermost()));
            }
            InstrumentationEvent::FinishQuery { query, error, .. } => {
                let end = hotpath_core::op::now();
                if let Some((start, source)) = self.start.take() {
                    hotpath_core::internal(|| {
                        let sql = sql_text(query);
                        if !is_transaction_control(&sql) {
                            let ns =
                                (end.saturating_sub(start) as f64 * super::ns_per_tick()) as u64;
                            super::record_query(super::Query {
                                sql: &sql,
                                backend: "diesel",
                                source,
                                elapsed_ns: ns,
                                rows_returned: 0,
                                rows_affected: 0,
                                error: error.is_some(),
                            });
                        }
                    });
                }
            }
            _ => {}
        }
        forward(event);
    }
}
