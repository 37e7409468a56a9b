//! With `hotpath-alloc`: the profiler's own work when a channel, stream or future is
//! made with its macro (registering the instance with its site, naming an entry, the
//! state shared by a channel's endpoints, the first use of a site on a thread) is not
//! charged to the function that made it (`src/bin/flow_allocs.rs`, read back from its
//! JSON report).
#![cfg(feature = "hotpath-alloc")]

use std::process::Command;

use hotpath::report::Report;

/// Calls of each measured function of the fixture: instances made per site. More than
/// `HOTPATH_ENTRIES_LIMIT` (1000), so that the `iter = true` sites also make instances
/// past it, which share one entry.
const N: u64 = 1200;

fn report() -> Report {
    let mut c = Command::new(env!("CARGO_BIN_EXE_flow_allocs"));
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("HOTPATH_") {
            c.env_remove(k);
        }
    }
    let out = c
        .arg(N.to_string())
        .env("HOTPATH_OUTPUT_FORMAT", "json")
        .env("HOTPATH_LIMIT", "0")
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{stderr}");
    let json = String::from_utf8(out.stdout).unwrap();
    Report::from_json(&json).unwrap_or_else(|e| panic!("{e}: {json}"))
}

/// The allocations, bytes and freed bytes of function `flow_allocs::<name>`'s calls
/// (inclusive), after checking it was called `N` times.
fn allocs(r: &Report, name: &str) -> (u64, u64, u64) {
    let full = format!("flow_allocs::{name}");
    let f = r
        .functions
        .iter()
        .find(|f| f.name == full)
        .unwrap_or_else(|| panic!("no {full}"));
    assert_eq!(f.calls, N, "{full}");
    let a = f
        .alloc
        .as_ref()
        .unwrap_or_else(|| panic!("no alloc for {full}"));
    (a.count, a.bytes, a.freed_bytes)
}

/// Every `channel!` backend: a function that makes a channel with the macro and moves
/// one message through it allocates, frees and counts exactly what its raw twin does
/// (the same channel for messages of the wrapped one's layout). The twins' own
/// allocations (each channel's shared state, its buffers) are charged: at least one
/// per call.
#[test]
fn channel_instances_cost_the_program_what_the_raw_channel_does() {
    let r = report();
    let mut differ = Vec::new();
    for name in [
        "std_channel",
        "std_sync_channel",
        "crossbeam_bounded",
        "crossbeam_unbounded",
        "flume_bounded",
        "flume_unbounded",
        "async_channel_bounded",
        "async_channel_unbounded",
        "tokio_mpsc",
        "tokio_unbounded",
        "tokio_oneshot",
        "tokio_broadcast",
        "tokio_watch",
        "futures_mpsc",
        "futures_mpsc_full",
        "futures_unbounded",
        "futures_oneshot",
    ] {
        let raw = allocs(&r, &format!("{name}_raw"));
        assert!(raw.0 >= N, "{name}_raw: {raw:?}");
        let wrapped = allocs(&r, name);
        if wrapped != raw {
            differ.push(format!("{name}: {wrapped:?}, raw {raw:?}"));
        }
    }
    assert!(
        differ.is_empty(),
        "(allocations, bytes, freed) of N = {N} calls:\n{}",
        differ.join("\n")
    );
}

/// `iter = true`: each instance its own entry, named when it is made (up to the entries
/// limit, then one shared `<other>` entry): still exactly the raw channel's allocations.
#[test]
fn iter_channel_instances_cost_the_program_what_the_raw_channel_does() {
    let r = report();
    assert_eq!(
        allocs(&r, "std_channel_iter"),
        allocs(&r, "std_channel_raw")
    );
    let entries = r.channels.as_ref().expect("channels");
    let iter = entries
        .iter()
        .filter(|e| e.name.starts_with("iter"))
        .count();
    assert_eq!(iter, 1001);
}

/// `stream!` over `stream::iter`, polled to its end, allocates nothing of the
/// program's: nothing is charged, with an entry per site or per instance.
#[test]
fn stream_instances_cost_the_program_nothing() {
    let r = report();
    assert_eq!(allocs(&r, "stream_iter"), (0, 0, 0));
    assert_eq!(allocs(&r, "stream_iter_instances"), (0, 0, 0));
}

/// `future!` over a future ready at its first poll allocates nothing of the program's.
#[test]
fn future_instances_cost_the_program_nothing() {
    let r = report();
    assert_eq!(allocs(&r, "ready_future"), (0, 0, 0));
}
