//! Report builders shared by the CLI tests.
#![allow(dead_code)]

use hotpath::report::{Function, Report, WallNs, SCHEMA_VERSION};

/// Function `name` at `src/main.rs:10`, sync, every call timed, timing only.
pub fn function(name: &str, calls: u64, wall_ns: Option<WallNs>) -> Function {
    Function {
        name: name.into(),
        label: None,
        file: "src/main.rs".into(),
        line: 10,
        calls,
        timed_calls: calls,
        is_async: false,
        sampled: false,
        wall_ns,
        polls: None,
        busy_ns: None,
        cancelled: None,
        alloc: None,
        cpu: None,
        io: None,
    }
}

/// A timing-only report of `functions` from `app::main`, 1 s long, percentiles 50, 95, 99.
pub fn report(functions: Vec<Function>) -> Report {
    Report {
        schema_version: SCHEMA_VERSION,
        caller: "app::main".into(),
        elapsed_ns: 1_000_000_000,
        sections: vec!["timing".into()],
        percentiles: vec![50.0, 95.0, 99.0],
        overhead_per_call_ns: 24.6,
        overhead_ns: 1_000_000,
        clock: "tsc".into(),
        time_sampling_rate: 1.0,
        io_time_sampling_rate: None,
        notes: vec![],
        alloc_total: None,
        cpu: None,
        functions,
        io: None,
        threads: None,
        process_memory: None,
    }
}
