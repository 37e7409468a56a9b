//! With `hotpath-alloc` (this crate's `alloc` feature): the SQL, HTTP client and HTTP
//! server integrations charge the functions that query, request and serve only what the
//! program allocates itself. `service_allocs` (diesel, ureq) and `async_allocs` (sqlx,
//! reqwest, axum) run the same program with the integrations (`on`) and without them
//! (`off`); each measured function's allocations, bytes and freed bytes must be equal in
//! both, or differ by exactly what each test names.
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
    allocs_of(r, &format!("service_allocs::{name}"))
}

/// (allocations, bytes, freed) of the function `full`'s `N` calls.
fn allocs_of(r: &Report, full: &str) -> (u64, u64, u64) {
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

/// `async_allocs MODE SCENARIO N ARG`'s report.
fn run_async(mode: &str, scenario: &str, arg: &str) -> Report {
    let n = N.to_string();
    report(
        env!("CARGO_BIN_EXE_async_allocs"),
        &[mode, scenario, &n, arg],
    )
    .report
}

/// (allocations, bytes, freed) of `async_allocs::<name>`'s `N` calls.
fn async_allocs(r: &Report, name: &str) -> (u64, u64, u64) {
    allocs_of(r, &format!("async_allocs::{name}"))
}

/// sqlx on PostgreSQL: a measured function blocking on a measured `async fn` that runs a
/// new statement text at each call. hotpath's layer (its events read, its queries
/// interned) and its poll hook (a `hotpath` span entered around every poll of a measured
/// `async fn`, which tracing-subscriber's registry pushes on a stack it allocates at a
/// thread's first enter: 2 allocations, 104 bytes charged to the caller before) are the
/// profiler's work. The baseline is the same program with a subscriber that does nothing
/// and enables every event, not the program without any subscriber: sqlx formats each
/// statement it logs (6 allocations a statement here) whenever a subscriber enables
/// `sqlx::query`, in the program's poll, for whoever listens; that work is sqlx's, and
/// the program pays it for any subscriber. PostgreSQL because its statements run and are
/// logged in the caller's poll; SQLite's run on a driver thread, the caller only waiting
/// on channels, whose allocations vary from run to run with the driver's timing.
#[test]
fn sqlx_queries_cost_the_program_what_they_cost_with_any_subscriber() {
    let pg = hotpath_service_tests::Postgres::start();
    let (on, off) = (
        run_async("on", "sqlx-pg", &pg.url),
        run_async("off", "sqlx-pg", &pg.url),
    );
    let sql = on.sql.as_ref().expect("sql");
    let inserts: u64 = sql
        .iter()
        .filter(|e| e.source.as_deref() == Some("async_allocs::sqlx_execute_pg"))
        .map(|e| e.calls)
        .sum();
    assert_eq!(inserts, N, "{sql:?}");
    assert!(off.sql.as_ref().is_none_or(Vec::is_empty));
    for name in ["sqlx_query_pg", "sqlx_execute_pg"] {
        assert_eq!(
            async_allocs(&on, name),
            async_allocs(&off, name),
            "{name}: on, off"
        );
    }
}

/// What reqwest-middleware costs a request through a `ClientWithMiddleware`, which no
/// code of hotpath runs around: `client.get(url)` copies the client's middleware stack
/// into the request builder (`Box<[Arc<dyn Middleware>]>`, one `Arc` for hotpath's
/// middleware), freed when the request is sent; and it frees the box of the future
/// hotpath's middleware returns, a box holding one pointer (the future itself is in a box
/// of the profiler's, made and freed under `hotpath_core::internal`, as is the box
/// reqwest-middleware makes for the client's call past the last middleware).
const REQWEST_MIDDLEWARE_STACK: u64 =
    std::mem::size_of::<std::sync::Arc<dyn reqwest_middleware_05::Middleware>>() as u64;
/// See [`REQWEST_MIDDLEWARE_STACK`].
const REQWEST_MIDDLEWARE_FUTURE_BOX: u64 = std::mem::size_of::<usize>() as u64;

/// reqwest through `http!`: each request a new URL of one endpoint, its body read;
/// against the plain `reqwest::Client`. Before: 3 allocations, 952 bytes a request more
/// (the copied stack, the `#[async_trait]` box of the middleware's future, the box of the
/// client's call); now only the stack's copy, and the 8 bytes of the box
/// reqwest-middleware frees.
fn reqwest_requests(version: &str) {
    let scenario = format!("reqwest-{version}");
    let name = format!("reqwest_get_{version}");
    let (on, off) = (
        run_async("on", &scenario, ""),
        run_async("off", &scenario, ""),
    );
    let http = on.http.as_ref().expect("http");
    assert_eq!(http.iter().map(|e| e.calls).sum::<u64>(), N, "{http:?}");
    let (count, bytes, freed) = async_allocs(&on, &name);
    let (off_count, off_bytes, off_freed) = async_allocs(&off, &name);
    assert_eq!(
        (count, bytes, freed),
        (
            off_count + N,
            off_bytes + N * REQWEST_MIDDLEWARE_STACK,
            off_freed + N * (REQWEST_MIDDLEWARE_STACK + REQWEST_MIDDLEWARE_FUTURE_BOX)
        ),
        "on, off + reqwest-middleware's"
    );
}

#[test]
fn reqwest_012_requests_cost_the_program_only_reqwest_middlewares_own_work() {
    reqwest_requests("012");
}

#[test]
fn reqwest_013_requests_cost_the_program_only_reqwest_middlewares_own_work() {
    reqwest_requests("013");
}

/// axum: a measured handler (`GET /users/{id}`, a new id at each request) behind
/// `hotpath::axum!` and without it: the layer's work (the route's site, the request's
/// record) runs around the handler's future, under `hotpath_core::internal`.
#[test]
fn axum_handlers_cost_the_program_what_they_cost_without_hotpath() {
    let (on, off) = (run_async("on", "axum", ""), run_async("off", "axum", ""));
    let server = on.server.as_ref().expect("server");
    assert_eq!(server.iter().map(|e| e.calls).sum::<u64>(), N, "{server:?}");
    assert_eq!(
        async_allocs(&on, "user"),
        async_allocs(&off, "user"),
        "on, off"
    );
}
