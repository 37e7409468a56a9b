//! Renderers against a fixed report: the table and JSON layouts are reviewed as
//! snapshots (`cargo insta review` after a deliberate change), and JSON reads back to the
//! same value.
#![cfg(any(feature = "report", feature = "hotpath"))]

use hotpath::report::{
    AllocTotal, Function, FunctionAlloc, FunctionIo, IoDirection, IoEntry, Percentiles, Report,
    Section, WallNs, SCHEMA_VERSION,
};

fn wall(
    total: u64,
    self_: u64,
    calls: u64,
    min: u64,
    max: u64,
    ps: &[(f64, u64)],
) -> Option<WallNs> {
    Some(WallNs {
        total,
        self_,
        mean: total / calls,
        min,
        max,
        percentiles: Percentiles(ps.to_vec()),
        hist: None,
    })
}

fn func(name: &str, calls: u64, wall_ns: Option<WallNs>) -> Function {
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

fn alloc(
    count: u64,
    bytes: u64,
    self_count: u64,
    self_bytes: u64,
    freed: u64,
    calls: u64,
    ps: &[(f64, u64)],
) -> Option<FunctionAlloc> {
    Some(FunctionAlloc {
        count,
        bytes,
        self_count,
        self_bytes,
        freed_bytes: freed,
        retained_bytes: bytes as i64 - freed as i64,
        per_call_count: count as f64 / calls as f64,
        per_call_bytes: bytes / calls,
        percentiles: Percentiles(ps.to_vec()),
        hist: None,
    })
}

fn fixed() -> Report {
    let mut fetch = func(
        "app::net::fetch",
        16,
        wall(
            96_000_000,
            1_200_000,
            16,
            5_100_000,
            7_900_000,
            &[(50.0, 5_900_000), (95.0, 7_700_000), (99.9, 7_900_000)],
        ),
    );
    fetch.is_async = true;
    fetch.polls = Some(48);
    fetch.busy_ns = Some(2_400_000);
    fetch.cancelled = Some(0);
    let mut sampled = func(
        "app::parse::parse_line",
        200_000,
        wall(
            41_000_000,
            41_000_000,
            200_000,
            150,
            9_800,
            &[(50.0, 190), (95.0, 260), (99.9, 1_900)],
        ),
    );
    sampled.sampled = true;
    sampled.timed_calls = 2_013;
    let mut labelled = func(
        "app::checksum",
        1,
        wall(
            812_000,
            812_000,
            1,
            812_000,
            812_000,
            &[(50.0, 812_000), (95.0, 812_000), (99.9, 812_000)],
        ),
    );
    labelled.label = Some("checksum".into());
    fetch.alloc = alloc(
        32,
        48_000,
        32,
        48_000,
        48_000,
        16,
        &[(50.0, 3_000), (95.0, 3_000), (99.9, 3_000)],
    );
    sampled.alloc = alloc(
        200_000,
        6_400_000,
        200_000,
        6_400_000,
        0,
        200_000,
        &[(50.0, 32), (95.0, 32), (99.9, 32)],
    );
    let mut counted = func("app::tiny", 5_000_000, None);
    counted.timed_calls = 0;
    counted.sampled = true;
    Report {
        schema_version: SCHEMA_VERSION,
        caller: "app::main".into(),
        label: None,
        elapsed_ns: 1_234_567_890,
        sections: vec![Section::Timing, Section::Alloc],
        percentiles: vec![50.0, 95.0, 99.9],
        overhead_per_call_ns: 24.6,
        overhead_ns: 5_540_000,
        clock_floor_ns: None,
        clock: "tsc".into(),
        time_sampling_rate: 0.01,
        io_time_sampling_rate: None,
        notes: vec![
            "measured scopes nested deeper than 512; below that depth self time includes children"
                .into(),
        ],
        alloc_total: Some(AllocTotal {
            count: 200_150,
            bytes: 9_000_000,
            freed_bytes: 2_000_000,
            unattributed_count: 100,
            unattributed_bytes: 400_000,
            unattributed_freed_bytes: 1_900_000,
        }),
        cpu: None,
        io: None,
        channels: None,
        streams: None,
        futures: None,
        threads: None,
        process_memory: None,
        stacks: None,
        functions: vec![
            func(
                "app::main",
                1,
                wall(
                    1_234_000_000,
                    3_100_000,
                    1,
                    1_234_000_000,
                    1_234_000_000,
                    &[
                        (50.0, 1_234_000_000),
                        (95.0, 1_234_000_000),
                        (99.9, 1_234_000_000),
                    ],
                ),
            ),
            fetch,
            sampled,
            func(
                "<app::Point as core::fmt::Display>::fmt",
                3,
                wall(
                    2_400,
                    2_400,
                    3,
                    700,
                    900,
                    &[(50.0, 800), (95.0, 900), (99.9, 900)],
                ),
            ),
            labelled,
            counted,
        ],
        ..Report::default()
    }
}

/// `fixed()` with `main` allocating too.
fn fixed_with_main_alloc() -> Report {
    let mut r = fixed();
    r.functions[0].alloc = alloc(
        200_150 - 100,
        8_600_000,
        118,
        2_152_000,
        100_000,
        1,
        &[(50.0, 8_600_000), (95.0, 8_600_000), (99.9, 8_600_000)],
    );
    r
}

#[test]
fn table() {
    insta::assert_snapshot!(fixed_with_main_alloc().to_table(0));
}

#[test]
fn table_with_limit() {
    insta::assert_snapshot!(fixed_with_main_alloc().to_table(2));
}

#[test]
fn json_pretty() {
    insta::assert_snapshot!(fixed_with_main_alloc().to_json_pretty());
}

#[test]
fn json_reads_back_to_the_same_report() {
    let r = fixed_with_main_alloc();
    assert_eq!(Report::from_json(&r.to_json()).unwrap(), r);
    assert_eq!(Report::from_json(&r.to_json_pretty()).unwrap(), r);
}

#[test]
fn other_schema_versions_are_refused() {
    let text = fixed()
        .to_json()
        .replace("\"schema_version\":7", "\"schema_version\":8");
    let e = Report::from_json(&text).unwrap_err().to_string();
    assert!(
        e.contains("schema_version 8") && e.contains("reads versions 1 to 7"),
        "{e}"
    );
    // Version 1 only lacked keys and sections that versions 2 and 3 added: still read.
    let v1 = fixed()
        .to_json()
        .replace("\"schema_version\":7", "\"schema_version\":1");
    assert_eq!(Report::from_json(&v1).unwrap().schema_version, 1);
    assert!(Report::from_json("{}").is_err());
    assert!(Report::from_json("not json")
        .unwrap_err()
        .to_string()
        .starts_with("not a hotpath JSON report"));
}

fn dir(ops: u64, bytes: u64, errors: u64, timed: u64, total_ns: u64) -> IoDirection {
    IoDirection {
        ops,
        bytes,
        errors,
        timed_ops: timed,
        total_ns,
        mean_ns: total_ns.checked_div(timed),
        rate_bytes_per_sec: (timed > 0 && total_ns > 0)
            .then(|| bytes as f64 * 1e9 / total_ns as f64),
        percentiles: Percentiles(
            total_ns
                .checked_div(timed)
                .map(|m| vec![(50.0, m), (95.0, m * 2), (99.9, m * 3)])
                .unwrap_or_default(),
        ),
        hist: None,
    }
}

fn entry(name: &str, line: u32, type_name: &str, instances: u64) -> IoEntry {
    IoEntry {
        name: name.into(),
        file: "src/main.rs".into(),
        line,
        type_name: type_name.into(),
        instances,
        read: IoDirection::default(),
        write: IoDirection::default(),
        flush: IoDirection::default(),
        shutdown: IoDirection::default(),
        seek: IoDirection::default(),
    }
}

/// `fixed()` with an I/O section: a read-only file, a write-only socket, one site that
/// wrapped two types (shown apart by type), one label used at two sites (shown apart by
/// line), seeks and a shutdown.
fn fixed_with_io() -> Report {
    let mut r = fixed();
    r.sections.push(Section::Io);
    r.io_time_sampling_rate = Some(0.25);
    let mut file = entry("src/main.rs:20", 20, "std::fs::File", 1);
    file.read = dir(33, 1_048_576, 0, 33, 2_000_000);
    file.seek = dir(2, 0, 1, 2, 400);
    let mut sock = entry("redis", 31, "std::net::TcpStream", 4);
    sock.write = dir(1_000, 28_000, 1, 1_000, 9_000_000);
    sock.flush = dir(1_000, 0, 0, 1_000, 100_000);
    sock.shutdown = dir(4, 0, 0, 4, 8_000);
    let mut buffered = entry("src/main.rs:40", 40, "std::io::BufReader<std::fs::File>", 1);
    buffered.read = dir(10, 4_000, 0, 0, 0);
    let mut raw = entry("src/main.rs:40", 40, "std::fs::File", 1);
    raw.read = dir(2, 4_000, 0, 2, 50_000);
    // One label at two sites, the same type: told apart by where they are.
    let mut saved = entry("dataset", 50, "std::fs::File", 1);
    saved.write = dir(3, 3_000, 0, 3, 3_000);
    let mut loaded = entry("dataset", 60, "std::fs::File", 1);
    loaded.read = dir(4, 3_000, 0, 4, 2_000);
    r.io = Some(vec![file, sock, raw, buffered, saved, loaded]);
    r.functions[1].io = Some(FunctionIo {
        read_bytes: 1_048_576,
        write_bytes: 28_000,
        io_ns: 11_000_000,
    });
    r
}

#[test]
fn table_with_io() {
    insta::assert_snapshot!(fixed_with_io().to_table(0));
}

#[test]
fn json_with_io_reads_back() {
    let r = fixed_with_io();
    let back = Report::from_json(&r.to_json()).expect("reads back");
    assert_eq!(back, r);
}

#[test]
fn io_section_with_writes_only_has_no_blank_line_before_its_table() {
    let mut r = fixed_with_io();
    r.io.as_mut().unwrap().retain(|e| e.name == "redis");
    let table = r.to_table(0);
    let at = table.find("io: operations per stream").expect("io section");
    let next_line = table[at..].lines().nth(1).expect("a line after the title");
    assert!(next_line.contains("Writes"), "{next_line:?}");
}

#[test]
fn json_without_a_schema_version_is_not_a_report() {
    let e = Report::from_json("{\"caller\":\"x\"}")
        .unwrap_err()
        .to_string();
    assert_eq!(e, "not a hotpath JSON report: it has no schema_version");
}
