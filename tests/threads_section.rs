//! The `threads` section rendered from fixed rows: the layout is reviewed as snapshots
//! (`cargo insta review` after a deliberate change), and the rows read back from JSON.
#![cfg(all(any(feature = "report", feature = "hotpath"), target_os = "linux"))]

use hotpath::report::{ProcessMemory, Report, ThreadRow, SCHEMA_VERSION};

#[allow(clippy::too_many_arguments)]
fn thread(
    name: &str,
    tid: u64,
    state: &str,
    avg: f64,
    max: f64,
    user_ns: u64,
    system_ns: u64,
    profiler: bool,
) -> ThreadRow {
    ThreadRow {
        name: name.into(),
        tid,
        state: state.into(),
        cpu_percent_avg: avg,
        cpu_percent_max: max,
        user_ns,
        system_ns,
        alloc_bytes: None,
        freed_bytes: None,
        profiler,
    }
}

/// A main thread, workers (one exited), and two of the profiler's threads; not sorted.
fn rows() -> Vec<ThreadRow> {
    vec![
        thread(
            "app", 4100, "sleeping", 2.34, 40.0, 30_000_000, 6_000_000, false,
        ),
        thread("hotpath-timeout", 4101, "sleeping", 0.0, 0.0, 0, 0, true),
        thread(
            "hotpath-threads",
            4102,
            "sleeping",
            1.24,
            10.0,
            10_000_000,
            5_000_000,
            true,
        ),
        thread(
            "worker-1",
            4103,
            "running",
            97.5,
            100.0,
            1_150_000_000,
            20_000_000,
            false,
        ),
        thread(
            "short job",
            4105,
            "exited",
            92.9,
            92.9,
            140_000_000,
            0,
            false,
        ),
        thread(
            "tokio-rt-worker",
            4104,
            "disk-wait",
            35.06,
            88.8,
            400_000_000,
            50_000_000,
            false,
        ),
        thread("idle (pool)", 4106, "sleeping", 0.0, 0.0, 0, 0, false),
    ]
}

fn with_alloc(mut rows: Vec<ThreadRow>) -> Vec<ThreadRow> {
    for (i, r) in rows.iter_mut().enumerate() {
        // One row the allocator knows nothing about.
        if r.name != "short job" {
            r.alloc_bytes = Some(1536 * (i as u64 + 1) * (i as u64 + 1) * 1000);
            r.freed_bytes = Some(1024 * (i as u64 + 1) * 1000);
        }
    }
    rows
}

const MEMORY: ProcessMemory = ProcessMemory {
    rss_bytes: 12_897_485,
    peak_rss_bytes: 47_815_065,
};

/// A report with the threads section only.
fn report(rows: Vec<ThreadRow>, memory: Option<ProcessMemory>) -> Report {
    let v = serde_json::json!({
        "schema_version": SCHEMA_VERSION,
        "caller": "app::main",
        "elapsed_ns": 1_234_567_890u64,
        "sections": ["threads"],
        "percentiles": [50.0, 99.0],
        "overhead_per_call_ns": 24.6,
        "overhead_ns": 0,
        "clock": "tsc",
        "time_sampling_rate": 1.0,
        "notes": [],
        "functions": [],
        "threads": rows,
        "process_memory": memory,
    });
    Report::from_json(&v.to_string()).unwrap()
}

/// The threads section of the table, from its title on.
fn section(r: &Report, limit: usize) -> String {
    let text = r.to_table(limit);
    let at = text
        .find("\nthreads: ")
        .unwrap_or_else(|| panic!("no threads section: {text}"));
    text[at + 1..].to_string()
}

#[test]
fn table() {
    insta::assert_snapshot!(section(&report(rows(), Some(MEMORY)), 0));
}

#[test]
fn table_with_alloc_columns() {
    insta::assert_snapshot!(section(&report(with_alloc(rows()), Some(MEMORY)), 0));
}

#[test]
fn table_with_limit() {
    insta::assert_snapshot!(section(&report(rows(), Some(MEMORY)), 2));
}

#[test]
fn without_profiler_threads_or_memory_those_lines_are_left_out() {
    let user: Vec<ThreadRow> = rows().into_iter().filter(|r| !r.profiler).collect();
    let text = section(&report(user, None), 0);
    assert!(
        text.starts_with("threads: per thread, by CPU time (5)\n"),
        "{text}"
    );
    assert!(!text.contains("profiler threads:"), "{text}");
    assert!(!text.contains("process memory:"), "{text}");
    assert!(!text.contains("Alloc"), "{text}");
}

#[test]
fn rows_are_sorted_by_cpu_time_and_profiler_threads_kept_apart() {
    let text = section(&report(rows(), Some(MEMORY)), 0);
    let names: Vec<&str> = text
        .lines()
        .skip(3)
        .take_while(|l| !l.starts_with("profiler threads:"))
        .map(|l| l.split("  ").next().unwrap().trim())
        .collect();
    assert_eq!(
        names,
        [
            "worker-1",
            "tokio-rt-worker",
            "short job",
            "app",
            "idle (pool)"
        ]
    );
    assert!(
        text.contains(
            "\nprofiler threads: hotpath-threads (1.2% avg), hotpath-timeout (0.0% avg)\n"
        ),
        "{text}"
    );
    assert!(
        text.ends_with(
            "process memory: 12.3 MiB resident at the end, 45.6 MiB at the peak (rss)\n"
        ),
        "{text}"
    );
}

#[test]
fn json_reads_back_to_the_same_rows() {
    let r = report(with_alloc(rows()), Some(MEMORY));
    assert_eq!(r.threads.as_deref(), Some(&with_alloc(rows())[..]));
    assert_eq!(r.process_memory, Some(MEMORY));
    assert_eq!(Report::from_json(&r.to_json()).unwrap(), r);
    let v: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
    let t = &v["threads"][0];
    for k in [
        "name",
        "tid",
        "state",
        "cpu_percent_avg",
        "cpu_percent_max",
        "user_ns",
        "system_ns",
        "alloc_bytes",
        "freed_bytes",
        "profiler",
    ] {
        assert!(t.get(k).is_some(), "thread key {k} missing: {t}");
    }
    assert_eq!(v["process_memory"]["rss_bytes"], 12_897_485);
    // Without hotpath-alloc the allocation fields are null, not absent.
    let plain = report(rows(), None);
    let v: serde_json::Value = serde_json::from_str(&plain.to_json()).unwrap();
    assert!(v["threads"][0]["alloc_bytes"].is_null());
    assert!(v["threads"][0].get("alloc_bytes").is_some());
}

#[test]
fn profiler_threads_of_one_name_share_an_entry_with_their_mean() {
    let mut rows = rows();
    for (tid, avg) in [(4200, 0.5), (4201, 0.1), (4202, 0.0)] {
        rows.push(thread(
            "hotpath-metrics",
            tid,
            "sleeping",
            avg,
            avg,
            0,
            0,
            true,
        ));
    }
    let text = section(&report(rows, None), 0);
    assert!(
        text.contains(
            "\nprofiler threads: hotpath-threads (1.2% avg), hotpath-timeout (0.0% avg), \
             hotpath-metrics ×3 (0.2% avg)\n"
        ),
        "{text}"
    );
}
