//! Report builders shared by the CLI tests.
#![allow(dead_code)]

use hotpath_report::{Function, FunctionCpu, Percentiles, Report, Section, WallNs, SCHEMA_VERSION};

/// Function `name` at `src/main.rs:10`, sync, every call timed, timing only.
pub fn function(name: &str, calls: u64, wall_ns: Option<WallNs>) -> Function {
    Function {
        name: name.into(),
        file: "src/main.rs".into(),
        line: 10,
        calls,
        timed_calls: calls,
        wall_ns,
        ..Function::default()
    }
}

/// `cpu_ns` of CPU (`self_cpu_ns` of it outside measured children) in `wall_ns` of wall
/// time, sampled at 1 kHz, no counters.
pub fn cpu(cpu_ns: u64, self_cpu_ns: u64, wall_ns: u64) -> Option<FunctionCpu> {
    Some(FunctionCpu {
        cpu_ns,
        self_cpu_ns,
        wait_ns: wall_ns.saturating_sub(cpu_ns),
        cpu_share: cpu_ns as f64 / wall_ns as f64,
        samples: Some(cpu_ns / 1_000_000),
        voluntary_switches: None,
        involuntary_switches: None,
        instructions: None,
        cycles: None,
        percentiles: Percentiles::default(),
        hist: None,
    })
}

/// A timing-only report of `functions` from `app::main`, 1 s long, percentiles 50, 95, 99.
pub fn report(functions: Vec<Function>) -> Report {
    Report {
        schema_version: SCHEMA_VERSION,
        caller: "app::main".into(),
        label: None,
        elapsed_ns: 1_000_000_000,
        sections: vec![Section::Timing],
        percentiles: vec![50.0, 95.0, 99.0],
        overhead_per_call_ns: 24.6,
        overhead_ns: 1_000_000,
        clock_floor_ns: None,
        clock: "tsc".into(),
        time_sampling_rate: 1.0,
        io_time_sampling_rate: None,
        notes: vec![],
        alloc_total: None,
        cpu: None,
        functions,
        io: None,
        channels: None,
        streams: None,
        futures: None,
        threads: None,
        process_memory: None,
        ..Report::default()
    }
}
