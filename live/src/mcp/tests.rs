//! The tools against a fixed report whose every number the tests know, and the SDK's
//! answers to a client's messages (without a socket).

use super::tools;
use super::*;
use crate::access::{MAX_HEADERS, MAX_URL};
use hotpath_report::{
    ChannelEntry, CpuInfo, Function, FunctionAlloc, FunctionCpu, FunctionIo, FunctionWaits,
    Histogram, IoDirection, IoEntry, LockDist, LockMode, MutexEntry, Percentiles, ProfilerStatus,
    Report, RunningCalls, Section, SendBlocked, ThreadRow, WallNs, SCHEMA_VERSION,
};
use serde_json::{json, Value};

/// A session of 10 ms: `parse` (1000 calls, allocating, mostly on CPU), `read_input` (10
/// calls, mostly waiting on I/O) and `main` (still running, no call completed).
struct Fake {
    report: Report,
}

fn wall(total: u64, self_: u64, mean: u64, p50: u64, p99: u64) -> WallNs {
    WallNs {
        total,
        self_,
        mean,
        min: p50 / 2,
        max: p99 * 2,
        percentiles: Percentiles(vec![(50.0, p50), (99.0, p99)]),
        hist: Some(Histogram {
            sum: total,
            buckets: vec![(p50, 1)],
        }),
    }
}

fn cpu(cpu_ns: u64, wait_ns: u64) -> FunctionCpu {
    FunctionCpu {
        cpu_ns,
        self_cpu_ns: cpu_ns,
        wait_ns,
        cpu_share: cpu_ns as f64 / (cpu_ns + wait_ns) as f64,
        samples: Some(cpu_ns / 1_000_000),
        voluntary_switches: None,
        involuntary_switches: None,
        instructions: None,
        cycles: None,
        percentiles: Percentiles(vec![]),
        hist: None,
    }
}

fn alloc(bytes: u64, count: u64, calls: u64) -> FunctionAlloc {
    FunctionAlloc {
        count,
        bytes,
        self_count: count,
        self_bytes: bytes,
        freed_bytes: bytes,
        retained_bytes: 0,
        per_call_count: count as f64 / calls as f64,
        per_call_bytes: bytes / calls,
        percentiles: Percentiles(vec![(50.0, bytes / calls), (99.0, bytes / calls)]),
        hist: None,
    }
}

fn fixed_report() -> Report {
    let parse = Function {
        name: "app::parse".into(),
        short_name: Some("parse".into()),
        file: "src/parse.rs".into(),
        line: 12,
        calls: 1000,
        timed_calls: 1000,
        wall_ns: Some(wall(2_000_000, 1_500_000, 2_000, 1_800, 8_000)),
        alloc: Some(alloc(64_000, 1000, 1000)),
        cpu: Some(cpu(1_800_000, 200_000)),
        waits: Some(FunctionWaits {
            own_ns: 1_500_000,
            cpu_ns: Some(1_000_000),
            lock_ns: 300_000,
            channel_send_ns: 20_000,
            channel_recv_ns: 50_000,
            other_ns: 130_000,
            ..FunctionWaits::default()
        }),
        ..Function::default()
    };
    let read_input = Function {
        name: "app::read_input".into(),
        short_name: Some("read_input".into()),
        file: "src/main.rs".into(),
        line: 30,
        calls: 10,
        timed_calls: 10,
        wall_ns: Some(wall(5_000_000, 5_000_000, 500_000, 450_000, 900_000)),
        alloc: Some(alloc(1_000, 10, 10)),
        cpu: Some(cpu(100_000, 4_900_000)),
        io: Some(FunctionIo {
            read_bytes: 4096,
            write_bytes: 0,
            io_ns: 4_800_000,
        }),
        waits: Some(FunctionWaits {
            own_ns: 5_000_000,
            cpu_ns: Some(100_000),
            io_ns: 4_800_000,
            other_ns: 100_000,
            ..FunctionWaits::default()
        }),
        ..Function::default()
    };
    let main = Function {
        name: "app::main".into(),
        short_name: Some("main".into()),
        file: "src/main.rs".into(),
        line: 5,
        running: Some(RunningCalls {
            calls: 1,
            total_ns: 8_000_000,
            self_ns: 1_000_000,
        }),
        ..Function::default()
    };
    let read = IoDirection {
        ops: 5,
        bytes: 4096,
        timed_ops: 5,
        total_ns: 4_800_000,
        mean_ns: Some(960_000),
        percentiles: Percentiles(vec![(50.0, 900_000), (99.0, 1_200_000)]),
        hist: Some(Histogram {
            sum: 4_800_000,
            buckets: vec![(900_000, 5)],
        }),
        ..IoDirection::default()
    };
    let thread = |name: &str, tid: u64, profiler: bool| ThreadRow {
        name: name.into(),
        tid,
        state: "sleeping".into(),
        cpu_percent_avg: 1.0,
        cpu_percent_max: 2.0,
        user_ns: 1_000,
        system_ns: 0,
        alloc_bytes: None,
        freed_bytes: None,
        profiler,
    };
    Report {
        schema_version: SCHEMA_VERSION,
        caller: "app::main".into(),
        label: None,
        elapsed_ns: 10_000_000,
        sections: Section::ALL.to_vec(),
        percentiles: vec![50.0, 99.0],
        overhead_per_call_ns: 20.0,
        overhead_ns: 20_200,
        clock_floor_ns: None,
        clock: "tsc".into(),
        time_sampling_rate: 1.0,
        io_time_sampling_rate: Some(1.0),
        notes: vec!["one note".into(), "another note".into()],
        alloc_total: None,
        cpu: Some(CpuInfo {
            mode: "sampled".into(),
            source: "timer_create(CLOCK_THREAD_CPUTIME_ID)".into(),
            hz: Some(1000),
            fallback_reason: None,
            hw_counters_unavailable: None,
            process_cpu_ns: 2_000_000,
            sampled_cpu_ns: Some(2_000_000),
            unattributed_cpu_ns: 100_000,
        }),
        // By total wall time, as the report orders them.
        functions: vec![main, read_input, parse],
        io: Some(vec![IoEntry {
            name: "input".into(),
            file: "src/main.rs".into(),
            line: 31,
            type_name: "std::fs::File".into(),
            instances: 1,
            read,
            write: IoDirection::default(),
            flush: IoDirection::default(),
            shutdown: IoDirection::default(),
            seek: IoDirection::default(),
        }]),
        threads: Some(vec![
            thread("main", 100, false),
            thread("worker", 101, false),
            thread("hotpath-mcp", 102, true),
        ]),
        process_memory: None,
        channels: Some(vec![ChannelEntry {
            name: "jobs".into(),
            label: Some("jobs".into()),
            file: "src/main.rs".into(),
            line: 50,
            type_name: "app::Job".into(),
            instances: 1,
            backend: "std".into(),
            kind: "bounded".into(),
            capacity: Some(10),
            sent: 100,
            received: 90,
            send_errors: 0,
            unread: 10,
            max_depth: 10,
            lagged: 0,
            send_blocked: SendBlocked {
                count: 5,
                total_ns: 50_000,
                max_ns: 20_000,
            },
            latency_ns: None,
        }]),
        mutexes_time_sampling_rate: Some(1.0),
        mutexes: Some(vec![MutexEntry {
            name: "state".into(),
            label: Some("state".into()),
            file: "src/main.rs".into(),
            line: 40,
            backend: "std".into(),
            type_name: "std::sync::Mutex<app::State>".into(),
            instances: 1,
            lock: LockMode {
                acquisitions: 1000,
                contended: 10,
                wait_ns: Some(LockDist {
                    total: 300_000,
                    hist: Some(Histogram {
                        sum: 300_000,
                        buckets: vec![(30_000, 10)],
                    }),
                    ..LockDist::default()
                }),
                ..LockMode::default()
            },
        }]),
        ..Report::default()
    }
}

impl Source for Fake {
    fn report(&self) -> Report {
        self.report.clone()
    }

    fn status(&self) -> ProfilerStatus {
        ProfilerStatus {
            schema_version: SCHEMA_VERSION,
            version: "0.1.0".into(),
            pid: 7,
            caller: "app::main".into(),
            uptime_ns: 10_000_000,
            sections: self.sections(),
            features: vec!["hotpath".into(), "hotpath-mcp".into()],
            cpu_mode: None,
            cpu_source: None,
            clock: "tsc".into(),
            time_sampling_rate: 1.0,
        }
    }

    /// What this build can collect, as a session would.
    fn sections(&self) -> Vec<Section> {
        Section::ALL
            .into_iter()
            .filter(|s| self.compiled(*s))
            .collect()
    }

    fn metrics_limit(&self) -> usize {
        200
    }

    /// A build without hotpath-alloc, hotpath-cpu and hotpath-callgrind, as these tests
    /// expect.
    fn compiled(&self, section: Section) -> bool {
        !matches!(section, Section::Alloc | Section::Cpu | Section::Icount)
    }
}

fn fake() -> Fake {
    Fake {
        report: fixed_report(),
    }
}

/// The names and values of a `top_functions` answer.
fn ranking(v: &Value) -> Vec<(String, Value)> {
    v["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["name"].as_str().unwrap().to_string(), f["value"].clone()))
        .collect()
}

fn top(metric: &str, limit: usize) -> Value {
    tools::top_functions(&fake(), metric, limit).unwrap_or_else(|e| panic!("{metric}: {e}"))
}

fn names(pairs: &[(&str, i64)]) -> Vec<(String, Value)> {
    pairs
        .iter()
        .map(|(n, v)| (n.to_string(), json!(v)))
        .collect()
}

#[test]
fn status_is_the_profiler_status() {
    let v = tools::status(&fake()).unwrap();
    assert_eq!(v, serde_json::to_value(fake().status()).unwrap());
    assert_eq!(
        (v["pid"].clone(), v["uptime_ns"].clone()),
        (json!(7), json!(10_000_000))
    );
}

#[test]
fn sections_lists_every_section_with_what_this_build_has() {
    let v = tools::sections(&fake()).unwrap();
    let list = v["sections"].as_array().unwrap();
    let got: Vec<&str> = list.iter().map(|s| s["name"].as_str().unwrap()).collect();
    let all: Vec<&str> = Section::ALL.iter().map(|s| s.name()).collect();
    assert_eq!(got, all);
    // The fake session's build has no hotpath-alloc.
    let alloc = &list[1];
    assert_eq!(
        (alloc["compiled"].clone(), alloc["collected"].clone()),
        (json!(false), json!(false))
    );
    assert_eq!(alloc["feature"], json!("hotpath-alloc"));
    assert_eq!(alloc["route"], json!("/functions_alloc"));
    assert_eq!(
        alloc["why_not"],
        json!("section alloc needs the feature hotpath-alloc")
    );
    assert_eq!(
        (list[0]["collected"].clone(), list[0]["why_not"].clone()),
        (json!(true), Value::Null)
    );
}

#[test]
fn a_section_is_its_fragment_cut_to_the_limit_without_histograms() {
    let full = fixed_report().fragment(Section::Timing);
    let v = tools::section(&fake(), "timing", 0, true).unwrap();
    assert_eq!(v, full);
    let v = tools::section(&fake(), "timing", 2, false).unwrap();
    let fs = v["functions"].as_array().unwrap();
    assert_eq!(fs.len(), 2);
    assert_eq!(v["truncated"], json!({ "functions": 3 }));
    assert_eq!(fs[1]["name"], json!("app::read_input"));
    assert_eq!(fs[1]["wall_ns"]["p99"], json!(900_000));
    assert!(fs[1]["wall_ns"].get("hist").is_none(), "{}", fs[1]);
    // The io section: its entries and the functions that made I/O, histograms gone.
    let v = tools::io(&fake(), 20).unwrap();
    assert_eq!(v["section"], json!("io"));
    assert_eq!(v["io"][0]["read"]["bytes"], json!(4096));
    assert_eq!(v["io"][0]["read"]["p99"], json!(1_200_000));
    assert!(v["io"][0]["read"].get("hist").is_none());
    let io_functions: Vec<&Value> = v["functions"].as_array().unwrap().iter().collect();
    assert_eq!(io_functions.len(), 1);
    assert_eq!(io_functions[0]["io"]["io_ns"], json!(4_800_000));
    let e = tools::section(&fake(), "nope", 20, false).unwrap_err();
    assert_eq!(
        e,
        "no section \"nope\"; sections: timing, alloc, cpu, icount, waits, io, channels, streams, \
         futures, sql, http, server, mutexes, rw_locks, tokio, threads, debug, stacks"
    );
}

#[test]
fn threads_are_listed_when_the_build_has_the_section() {
    let answer = tools::threads(&fake(), 2);
    if cfg!(target_os = "linux") {
        let v = answer.unwrap();
        let names: Vec<&str> = v["threads"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["main", "worker"]);
        assert_eq!(v["truncated"], json!({ "threads": 3 }));
        // Only lists of rows are cut, not the percentiles or the notes.
        let v = tools::threads(&fake(), 1).unwrap();
        assert_eq!(v["truncated"], json!({ "threads": 3 }));
        assert_eq!(v["percentiles"], json!([50.0, 99.0]));
        assert_eq!(v["notes"], json!(["one note", "another note"]));
    } else {
        assert_eq!(answer.unwrap_err(), "section threads needs Linux");
    }
}

#[test]
fn data_flow_is_the_channel_stream_future_and_lock_sections_this_run_has() {
    let v = tools::data_flow(&fake(), 20).unwrap();
    let channels = &v["sections"]["channels"];
    assert_eq!(channels["section"], json!("channels"));
    assert_eq!(channels["channels"][0]["name"], json!("jobs"));
    assert_eq!(
        (
            &channels["channels"][0]["sent"],
            &channels["channels"][0]["unread"],
            &channels["channels"][0]["send_blocked"]["count"]
        ),
        (&json!(100), &json!(10), &json!(5))
    );
    assert_eq!(
        *channels,
        tools::section(&fake(), "channels", 20, false).unwrap()
    );
    // Sections this build collects but the run has no entries in: empty lists.
    assert_eq!(v["sections"]["streams"]["streams"], json!([]));
    assert_eq!(v["sections"]["futures"]["futures"], json!([]));
    let mutexes = &v["sections"]["mutexes"];
    assert_eq!(mutexes["section"], json!("mutexes"));
    assert_eq!(mutexes["mutexes"][0]["name"], json!("state"));
    assert_eq!(mutexes["mutexes"][0]["contended"], json!(10));
    assert_eq!(mutexes["mutexes"][0]["wait_ns"]["total"], json!(300_000));
    assert!(mutexes["mutexes"][0]["wait_ns"].get("hist").is_none());
    // The same as the section tool answers.
    assert_eq!(
        *mutexes,
        tools::section(&fake(), "mutexes", 20, false).unwrap()
    );
    assert!(v["sections"]["rw_locks"].is_object());
    assert_eq!(v["absent"], json!({}));
}

#[test]
fn top_functions_ranks_by_any_metric() {
    let v = top("calls", 20);
    assert_eq!(
        ranking(&v),
        names(&[
            ("app::parse", 1000),
            ("app::read_input", 10),
            ("app::main", 0)
        ])
    );
    assert_eq!(
        (v["metric"].clone(), v["unit"].clone()),
        (json!("calls"), json!("calls"))
    );
    // Total time counts calls still running, as the tables do.
    let v = top("total", 2);
    assert_eq!(
        ranking(&v),
        names(&[("app::main", 8_000_000), ("app::read_input", 5_000_000)])
    );
    assert_eq!(v["functions_with_metric"], json!(3));
    assert_eq!(v["functions"][0]["self_ns"], json!(1_000_000));
    assert_eq!(
        ranking(&top("self", 1)),
        names(&[("app::read_input", 5_000_000)])
    );
    assert_eq!(
        ranking(&top("mean", 0)),
        names(&[("app::read_input", 500_000), ("app::parse", 2_000)])
    );
    let v = top("p99", 0);
    assert_eq!(
        ranking(&v),
        names(&[("app::read_input", 900_000), ("app::parse", 8_000)])
    );
    assert_eq!(
        (v["functions_without_metric"].clone(), v["unit"].clone()),
        (json!(1), json!("ns"))
    );
    assert_eq!(
        ranking(&top("alloc_bytes", 0)),
        names(&[("app::parse", 64_000), ("app::read_input", 1_000)])
    );
    assert_eq!(
        ranking(&top("alloc_per_call", 0)),
        names(&[("app::read_input", 100), ("app::parse", 64)])
    );
    assert_eq!(
        ranking(&top("cpu", 0)),
        names(&[("app::parse", 1_800_000), ("app::read_input", 100_000)])
    );
    assert_eq!(
        ranking(&top("off_cpu", 0)),
        names(&[("app::read_input", 4_900_000), ("app::parse", 200_000)])
    );
    assert_eq!(top("wait", 0)["metric"], json!("off_cpu"));
    // The waits section: own time in wrapped operations, by kind.
    assert_eq!(
        ranking(&top("waited", 0)),
        names(&[("app::read_input", 4_800_000), ("app::parse", 370_000)])
    );
    assert_eq!(
        ranking(&top("lock_wait", 0)),
        names(&[("app::parse", 300_000), ("app::read_input", 0)])
    );
    assert_eq!(
        ranking(&top("channel_wait", 0)),
        names(&[("app::parse", 70_000), ("app::read_input", 0)])
    );
    assert_eq!(
        ranking(&top("waits.channel_recv_ns", 1)),
        names(&[("app::parse", 50_000)])
    );
    assert_eq!(
        ranking(&top("io", 0)),
        names(&[("app::read_input", 4_800_000)])
    );
    assert_eq!(
        ranking(&top("io_bytes", 0)),
        names(&[("app::read_input", 4096)])
    );
}

#[test]
fn any_numeric_path_into_a_function_is_a_metric() {
    let v = top("cpu.wait_ns", 0);
    assert_eq!(ranking(&v), ranking(&top("wait", 0)));
    assert_eq!(v["metric"], json!("cpu.wait_ns"));
    let v = top("alloc.p99", 0);
    assert_eq!(
        ranking(&v),
        names(&[("app::read_input", 100), ("app::parse", 64)])
    );
    let v = top("cpu.cpu_share", 1);
    assert_eq!(v["functions"][0]["name"], json!("app::parse"));
    assert_eq!(v["functions"][0]["value"], json!(0.9));
}

#[test]
fn unknown_metrics_and_percentiles_say_what_there_is() {
    let e = tools::top_functions(&fake(), "p95", 10).unwrap_err();
    assert_eq!(
        e,
        "percentile p95 is not measured; this report has p50, p99"
    );
    let e = tools::top_functions(&fake(), "speed", 10).unwrap_err();
    assert!(
        e.starts_with("no metric \"speed\"; metrics: total, self, calls, avg,"),
        "{e}"
    );
    assert!(tools::top_functions(&fake(), "cpu.", 10).is_err());
}

#[test]
fn one_function_in_detail() {
    let v = tools::function(&fake(), "parse", false).unwrap();
    let f = &v["function"];
    assert_eq!(f["name"], json!("app::parse"));
    assert_eq!(f["calls"], json!(1000));
    assert_eq!(f["wall_ns"]["mean"], json!(2_000));
    assert_eq!(f["wall_ns"]["p50"], json!(1_800));
    assert_eq!(f["wall_ns"]["p99"], json!(8_000));
    assert!(f["wall_ns"].get("hist").is_none());
    assert_eq!(f["alloc"]["bytes"], json!(64_000));
    assert_eq!(f["cpu"]["wait_ns"], json!(200_000));
    assert_eq!(v["share_of_run"], json!(0.2));
    // Its waits, as the report has them.
    assert_eq!(
        f["waits"],
        json!({"own_ns": 1_500_000, "cpu_ns": 1_000_000, "io_ns": 0, "lock_ns": 300_000,
               "channel_send_ns": 20_000, "channel_recv_ns": 50_000, "sql_ns": 0,
               "http_ns": 0, "other_ns": 130_000})
    );
    assert_eq!(v["percentiles"], json!([50.0, 99.0]));
    // With histograms; by full name, short name, file:line, a unique part.
    let v = tools::function(&fake(), "app::parse", true).unwrap();
    assert_eq!(v["function"]["wall_ns"]["hist"]["sum"], json!(2_000_000));
    for q in ["src/main.rs:30", "read_input", "read_in"] {
        let v = tools::function(&fake(), q, false).unwrap();
        assert_eq!(v["function"]["name"], json!("app::read_input"), "{q}");
        assert_eq!(v["function"]["waits"]["io_ns"], json!(4_800_000));
    }
    let v = tools::function(&fake(), "main", false).unwrap();
    assert_eq!(v["function"]["running"]["total_ns"], json!(8_000_000));
    assert_eq!(v["share_of_run"], json!(0.8));
    let e = tools::function(&fake(), "app", false).unwrap_err();
    assert_eq!(
        e,
        "3 functions match \"app\": app::main (src/main.rs:5), app::read_input \
         (src/main.rs:30), app::parse (src/parse.rs:12); give a full name or file:line"
    );
    let e = tools::function(&fake(), "nothing", false).unwrap_err();
    assert_eq!(
        e,
        "no function matches \"nothing\" among 3 measured; top_functions lists them"
    );
}

/// A file in the temporary directory, removed on drop.
struct TempFile(std::path::PathBuf);

impl TempFile {
    fn new(name: &str, text: &str) -> TempFile {
        let p = std::env::temp_dir().join(format!("hotpath-mcp-{}-{name}", std::process::id()));
        std::fs::write(&p, text).unwrap();
        TempFile(p)
    }

    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn compare_against_a_baseline() {
    // The baseline: parse took half as long a call, read_input the same; main had not
    // started; an old function is gone.
    let mut base = fixed_report();
    base.functions.retain(|f| f.name != "app::main");
    let parse = base.functions.iter_mut().find(|f| f.name == "app::parse");
    let w = parse.unwrap().wall_ns.as_mut().unwrap();
    w.mean = 1_000;
    w.percentiles = Percentiles(vec![(50.0, 900), (99.0, 8_000)]);
    base.functions.push(Function {
        name: "app::old".into(),
        calls: 3,
        ..Function::default()
    });
    base.label = Some("before".into());
    let file = TempFile::new("base.json", &base.to_json());

    let v = tools::compare(&fake(), file.path(), 10.0, 20).unwrap();
    assert_eq!(v["baseline_path"], json!(file.path()));
    assert_eq!(v["baseline"]["label"], json!("before"));
    assert_eq!(
        v["summary"],
        json!({ "slower": 1, "faster": 0, "same": 1, "not_timed": 0 })
    );
    assert_eq!(v["only_in_current"], json!(["app::main"]));
    assert_eq!(v["only_in_baseline"], json!(["app::old"]));
    let rows = v["functions"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    let parse = &rows[0];
    assert_eq!(
        (parse["name"].clone(), parse["verdict"].clone()),
        (json!("app::parse"), json!("slower"))
    );
    assert_eq!(
        parse["mean_ns"],
        json!({ "baseline": 1_000, "current": 2_000, "change_percent": 100.0 })
    );
    assert_eq!(
        parse["percentiles_ns"]["p50"],
        json!({ "baseline": 900, "current": 1_800, "change_percent": 100.0 })
    );
    assert_eq!(parse["percentiles_ns"]["p99"]["change_percent"], json!(0.0));
    assert_eq!(
        parse["calls"],
        json!({ "baseline": 1000, "current": 1000, "change_percent": 0.0 })
    );
    assert_eq!(
        parse["alloc_bytes_per_call"],
        json!({ "baseline": 64, "current": 64, "change_percent": 0.0 })
    );
    assert_eq!(rows[1]["verdict"], json!("same"));
    // With a threshold above 100 %, nothing is slower.
    let v = tools::compare(&fake(), file.path(), 150.0, 1).unwrap();
    assert_eq!(v["summary"]["same"], json!(2));
    assert_eq!(v["functions_not_shown"], json!(1));
}

#[test]
fn compare_says_what_is_wrong_with_the_baseline() {
    let missing = std::env::temp_dir().join("hotpath-mcp-no-such-report.json");
    let e = tools::compare(&fake(), missing.to_str().unwrap(), 10.0, 20).unwrap_err();
    assert!(
        e.starts_with(&format!("cannot open {}: ", missing.display())),
        "{e}"
    );
    let dir = std::env::temp_dir();
    let dir = dir.to_str().unwrap();
    let e = tools::compare(&fake(), dir, 10.0, 20).unwrap_err();
    assert_eq!(
        e,
        format!(
            "{dir} is not a regular file; give the path of a JSON report \
             (HOTPATH_OUTPUT_FORMAT=json)"
        )
    );
    let file = TempFile::new("not-a-report.json", "{\"a\": 1}");
    let e = tools::compare(&fake(), file.path(), 10.0, 20).unwrap_err();
    assert_eq!(
        e,
        format!(
            "{}: not a hotpath JSON report: it has no schema_version",
            file.path()
        )
    );
    let e = tools::compare(&fake(), file.path(), -1.0, 20).unwrap_err();
    assert_eq!(e, "threshold_percent -1 is not a number from 0 up");
    assert_eq!(
        tools::compare(&fake(), " ", 10.0, 20).unwrap_err(),
        "give the path of a JSON report (HOTPATH_OUTPUT_FORMAT=json)"
    );
}

#[test]
fn requests_are_checked_before_the_sdk_sees_them() {
    let loopback = ("127.0.0.1".to_string(), Vec::new());
    let status = |url: &str, headers: &[(&str, &[u8])], token: Option<&str>| {
        refusal(url, headers, token, &loopback).map(|(s, _, _)| s)
    };
    assert_eq!(status("/mcp", &[], None), None);
    assert_eq!(status("/mcp/", &[], None), None);
    assert_eq!(status("/report", &[], None), Some(404));
    let t = Some("s3cret");
    let (code, error, header) = refusal("/mcp", &[], t, &loopback).unwrap();
    assert_eq!(code, 401);
    assert_eq!(
        error,
        "missing or wrong token: send `Authorization: Bearer <HOTPATH_MCP_AUTH_TOKEN>`"
    );
    assert_eq!(header, Some((hyper::header::WWW_AUTHENTICATE, "Bearer")));
    assert_eq!(
        status("/mcp", &[("Authorization", b"Bearer wrong")], t),
        Some(401)
    );
    assert_eq!(
        status("/mcp", &[("authorization", b"s3cret")], t),
        Some(401)
    );
    assert_eq!(
        status("/mcp", &[("authorization", b"Bearer s3cret")], t),
        None
    );
    // The scheme in any case, as the metrics server takes it (RFC 9110).
    for auth in [&b"bearer s3cret"[..], b"BEARER s3cret"] {
        assert_eq!(status("/mcp", &[("authorization", auth)], t), None);
    }
    // Unknown paths do not tell who is not authorised.
    assert_eq!(status("/nope", &[], t), Some(401));
    let long = format!("/mcp?{}", "x".repeat(MAX_URL));
    assert_eq!(status(&long, &[], None), Some(414));
    let big = vec![b'y'; MAX_HEADERS];
    assert_eq!(status("/mcp", &[("X-Big", &big)], None), Some(431));
    // The body is a JSON-RPC error, which MCP clients show.
    let body: Value = serde_json::from_str(&refusal_body(401, "no token")).unwrap();
    assert_eq!(
        body,
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32001, "message": "no token"}})
    );
    let body: Value = serde_json::from_str(&refusal_body(404, "no route /x")).unwrap();
    assert_eq!(body["error"]["code"], json!(-32600));
    assert!(is_loopback("127.0.0.1") && is_loopback("localhost") && is_loopback("[::1]"));
    assert!(!is_loopback("0.0.0.0") && !is_loopback("example.com"));
}

/// The `Host` a request names is checked on every address, with or without a token,
/// as the metrics server checks it: `Host: evil.example` is refused (403) by a server on
/// 0.0.0.0 (it used to reach the SDK, which checks only on loopback).
#[test]
fn the_host_is_checked_on_every_address() {
    let any = ("0.0.0.0".to_string(), vec!["profiler.internal".to_string()]);
    let status = |host: &[u8], token: Option<&str>| {
        let auth: &[u8] = b"Bearer s3cret";
        let headers: Vec<(&str, &[u8])> = vec![("Host", host), ("authorization", auth)];
        refusal("/mcp", &headers, token, &any).map(|(s, e, _)| (s, e))
    };
    let (code, error) = status(b"evil.example", None).unwrap();
    assert_eq!(code, 403);
    assert_eq!(
        error,
        "Host \"evil.example\" is not allowed: use an IP address or localhost, or add the \
         name to HOTPATH_METRICS_ALLOWED_HOSTS"
    );
    assert_eq!(
        status(b"evil.example:6771", Some("s3cret")).map(|r| r.0),
        Some(403)
    );
    for ok in [
        &b"10.0.0.7:6771"[..],
        b"localhost",
        b"[::1]:6771",
        b"profiler.internal",
    ] {
        assert_eq!(status(ok, None), None, "{}", String::from_utf8_lossy(ok));
    }
    // Without a Host header (not a browser): answered, as the metrics server does.
    assert_eq!(refusal("/mcp", &[], None, &any).map(|r| r.0), None);
}

/// Posts one JSON-RPC message to the SDK's service as a client would, and returns the
/// status and the JSON answer.
fn post(
    service: &StreamableHttpService<server::Tools, NeverSessionManager>,
    rt: &tokio::runtime::Runtime,
    body: Value,
) -> (u16, Value) {
    let request = Request::builder()
        .method("POST")
        .uri("http://127.0.0.1/mcp")
        .header("Host", "127.0.0.1")
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2025-06-18")
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap();
    let response = rt.block_on(service.handle(request));
    let status = response.status().as_u16();
    let bytes = rt
        .block_on(response.into_body().collect())
        .unwrap()
        .to_bytes();
    let text = String::from_utf8(bytes.to_vec()).unwrap();
    (
        status,
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}")),
    )
}

#[test]
fn the_sdk_lists_and_calls_the_tools() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let source: Arc<dyn Source> = Arc::new(fake());
    let service = rt.block_on(async {
        StreamableHttpService::new(
            move || Ok(server::Tools::new(source.clone())),
            Arc::new(NeverSessionManager::default()),
            config(true),
        )
    });
    let (status, v) = post(
        &service,
        &rt,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}}}),
    );
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["result"]["serverInfo"]["name"], json!("hotpath"));
    assert_eq!(v["result"]["capabilities"], json!({ "tools": {} }));

    let (_, v) = post(
        &service,
        &rt,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    );
    let tools = v["result"]["tools"].as_array().unwrap();
    let mut listed: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    listed.sort();
    assert_eq!(
        listed,
        [
            "compare",
            "data_flow",
            "function",
            "io",
            "section",
            "sections",
            "status",
            "threads",
            "top_functions"
        ]
    );
    let schema = |name: &str| {
        let t = tools.iter().find(|t| t["name"] == name).unwrap();
        assert_eq!(t["annotations"]["readOnlyHint"], json!(true), "{name}");
        t["inputSchema"].clone()
    };
    assert_eq!(schema("function")["required"], json!(["name"]));
    assert_eq!(schema("compare")["required"], json!(["baseline"]));
    assert!(schema("top_functions")["properties"]["metric"].is_object());

    let (_, v) = post(
        &service,
        &rt,
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "top_functions", "arguments": {"metric": "calls", "limit": 1}}}),
    );
    let result = &v["result"];
    assert_eq!(result["isError"], json!(false), "{v}");
    let answer: Value =
        serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(ranking(&answer), names(&[("app::parse", 1000)]));

    // A tool's own error reaches the model as a tool error.
    let (_, v) = post(
        &service,
        &rt,
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
            "name": "top_functions", "arguments": {"metric": "p95"}}}),
    );
    assert_eq!(v["result"]["isError"], json!(true), "{v}");
    assert_eq!(
        v["result"]["content"][0]["text"],
        json!("percentile p95 is not measured; this report has p50, p99")
    );
}
