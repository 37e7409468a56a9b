//! With `hotpath-alloc` (this crate's `alloc` feature): the SQL and HTTP client
//! integrations charge the functions that query and request only what the program
//! allocates itself. `service_allocs` runs the same program with the integrations
//! (`on`) and without them (`off`); each measured function's allocations, bytes and
//! freed bytes must be equal in both.
#![cfg(feature = "alloc")]

use hotpath::report::Report;
use hotpath_service_tests::report;

const N: u64 = 200;

fn run(mode: &str) -> Report {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("allocs.sqlite");
    let n = N.to_string();
    report(
        env!("CARGO_BIN_EXE_service_allocs"),
        &[mode, path.to_str().unwrap(), &n],
    )
    .report
}

/// (allocations, bytes, freed) of `service_allocs::<name>`'s `N` calls.
fn allocs(r: &Report, name: &str) -> (u64, u64, u64) {
    let full = format!("service_allocs::{name}");
    let f = r
        .functions
        .iter()
        .find(|f| f.name == full)
        .unwrap_or_else(|| panic!("no {full}"));
    assert_eq!(f.calls, N, "{full}");
    let a = f.alloc.as_ref().expect("alloc");
    (a.count, a.bytes, a.freed_bytes)
}

fn compare(name: &str) {
    let (on, off) = (run("on"), run("off"));
    let sql = on.sql.as_ref().map_or(0, Vec::len);
    assert!(sql > 0 || name == "ureq_get", "{:?}", on.notes);
    assert_eq!(allocs(&on, name), allocs(&off, name), "{name}: on, off");
}

/// hotpath's instrumentation of one diesel connection: a `Box` of 24 bytes (the start
/// of the query in progress and its source), made when the connection is opened.
const DIESEL_INSTRUMENTATION: u64 = 24;

/// diesel: a connection made with hotpath's instrumentation, and one query on it. Its
/// instrumentation is allocated as the profiler's work, not charged; diesel frees it when
/// the connection drops (here, in the same function), in diesel's code, where nothing of
/// ours runs around the deallocation: those bytes are counted as freed.
#[test]
fn diesel_connections_cost_the_program_what_they_cost_without_hotpath() {
    let (on, off) = (run("on"), run("off"));
    let (count, bytes, freed) = allocs(&on, "diesel_connect");
    let (off_count, off_bytes, off_freed) = allocs(&off, "diesel_connect");
    assert_eq!((count, bytes), (off_count, off_bytes), "on, off");
    assert_eq!(freed, off_freed + N * DIESEL_INSTRUMENTATION);
}

/// diesel: a new query text at every call on one connection, looked up and normalised.
#[test]
fn diesel_queries_cost_the_program_what_they_cost_without_hotpath() {
    compare("diesel_query");
}

/// ureq: a request through `http!`'s middleware to a new URL of one endpoint.
#[test]
fn ureq_requests_cost_the_program_what_they_cost_without_hotpath() {
    let on = run("on");
    let http = on.http.as_ref().expect("http");
    assert_eq!(http.iter().map(|e| e.calls).sum::<u64>(), N);
    compare("ureq_get");
}
