//! `hotpath export` on a report whose tree the test knows, read back by real consumers:
//! `go tool pprof` (Debian's golang-go) for pprof, prost for the round trip, the SVG's
//! frame titles, the Trace Event JSON.

use std::io::{Read, Write};
use std::process::{Command, Output, Stdio};

use hotpath_report::{Report, Section, StackPath};

mod common;

const HOTPATH: &str = env!("CARGO_BIN_EXE_hotpath");

fn p(path: &[&str], calls: u64, total: u64, self_: u64) -> StackPath {
    StackPath {
        path: path.iter().map(|s| s.to_string()).collect(),
        calls,
        total_ns: total,
        self_ns: self_,
        cpu_ns: None,
        self_cpu_ns: None,
    }
}

/// `main -> a x10 (1 ms own) -> b (2 ms own)`, plus `main -> c` once (1 ms own):
/// b 20 ms self, a 10 ms self, main 1 ms self, c 1 ms.
fn report() -> Report {
    let mut functions = Vec::new();
    for (name, calls) in [
        ("app::main", 1),
        ("app::a", 10),
        ("app::b", 10),
        ("app::c", 1),
    ] {
        functions.push(common::function(name, calls, None));
    }
    let mut r = common::report(functions);
    r.sections.push(Section::Stacks);
    r.stacks = Some(vec![
        p(&["app::main"], 1, 32_000_000, 1_000_000),
        p(&["app::main", "app::a"], 10, 30_000_000, 10_000_000),
        p(
            &["app::main", "app::a", "app::b"],
            10,
            20_000_000,
            20_000_000,
        ),
        p(&["app::main", "app::c"], 1, 1_000_000, 1_000_000),
    ]);
    r
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("export");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn export(r: &Report, args: &[&str]) -> Output {
    let mut child = Command::new(HOTPATH)
        .args(["export", "-"])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(r.to_json().as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn ok(out: Output) -> Vec<u8> {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

#[test]
fn folded_stacks_are_the_paths_self_values() {
    let text = String::from_utf8(ok(export(&report(), &["--format", "folded"]))).unwrap();
    assert_eq!(
        text,
        "app::main 1000000\napp::main;app::a 10000000\napp::main;app::a;app::b 20000000\n\
         app::main;app::c 1000000\n"
    );
    let calls = String::from_utf8(ok(export(
        &report(),
        &["--format", "folded", "--weight", "calls"],
    )))
    .unwrap();
    assert!(calls.contains("app::main;app::a;app::b 10\n"), "{calls}");
}

#[test]
fn pprof_reads_back_with_prost_and_go_tool_pprof_tops_with_b() {
    let file = scratch("profile.pb.gz");
    ok(export(
        &report(),
        &["--format", "pprof", "-o", file.to_str().unwrap()],
    ));
    // Round trip: gunzip, decode with the same messages, compare with what was encoded.
    let mut raw = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(&file).unwrap())
        .read_to_end(&mut raw)
        .unwrap();
    let decoded: hotpath_cli::export::pprof::Profile = prost::Message::decode(&raw[..]).unwrap();
    let mut made = hotpath_cli::export::pprof::profile(&report(), Default::default()).unwrap();
    made.time_nanos = decoded.time_nanos;
    assert_eq!(decoded, made);
    let types: Vec<&str> = decoded
        .sample_type
        .iter()
        .map(|t| decoded.string_table[t.r#type as usize].as_str())
        .collect();
    assert_eq!(types, ["calls", "wall"]);
    assert_eq!(decoded.string_table[0], "");
    assert_eq!(decoded.sample.len(), 4);

    // The real consumer.
    let out = Command::new("go")
        .args(["tool", "pprof", "-top", "-sample_index=wall"])
        .arg(&file)
        .output()
        .expect("go tool pprof (Debian package golang-go; .ci/run installs it)");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // `flat flat% sum% cum cum% name`, by flat: b 20 ms, a 10 ms (cum 30 ms), then the
    // 1 ms ones.
    let rows: Vec<Vec<&str>> = text
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("flat"))
        .skip(1)
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(rows[0][0], "20ms", "{text}");
    assert_eq!(rows[0][5], "app::b", "{text}");
    assert_eq!(rows[1][0], "10ms", "{text}");
    assert_eq!(rows[1][3], "30ms", "{text}");
    assert_eq!(rows[1][5], "app::a", "{text}");
    assert!(text.contains("Total samples = 32ms"), "{text}");
    let calls = Command::new("go")
        .args(["tool", "pprof", "-top", "-sample_index=calls"])
        .arg(&file)
        .output()
        .unwrap();
    let calls = String::from_utf8_lossy(&calls.stdout);
    assert!(calls.contains("Total samples = 22"), "{calls}");
}

/// Labels may be any text, blank ones too (`""`, `" "`, `"\n"`): every format still
/// exports, each blank frame named `[blank]` (the SVG export used to panic on them).
#[test]
fn blank_names_export_as_a_named_frame_and_never_panic() {
    let mut r = report();
    r.stacks = Some(vec![
        p(&[" "], 1, 30, 10),
        p(&[" ", ""], 1, 15, 15),
        p(&[" ", "\n"], 1, 5, 5),
    ]);
    let folded = String::from_utf8(ok(export(&r, &["--format", "folded"]))).unwrap();
    assert_eq!(
        folded,
        "[blank] 10\n[blank];[blank] 15\n[blank];[blank] 5\n"
    );
    let svg = String::from_utf8(ok(export(&r, &["--format", "svg"]))).unwrap();
    assert!(
        svg.contains("<title>[blank] (30 ns, 100.00%)</title>"),
        "{svg}"
    );
    for format in ["pprof", "chrome"] {
        assert!(
            !ok(export(&r, &["--format", format])).is_empty(),
            "{format}"
        );
    }
}

#[test]
fn the_flame_graph_gives_b_its_share() {
    let svg = String::from_utf8(ok(export(&report(), &["--format", "svg"]))).unwrap();
    assert!(
        svg.starts_with("<?xml") || svg.starts_with("<svg"),
        "{}",
        &svg[..80]
    );
    // b: 20 of 32 ms, 62.5 %; a with b below it: 30 of 32 ms.
    assert!(
        svg.contains("<title>app::b (20,000,000 ns, 62.50%)</title>"),
        "{svg}"
    );
    assert!(svg.contains("<title>app::a (30,000,000 ns, 93.75%)</title>"));
}

#[test]
fn the_chrome_flame_chart_nests_each_path_in_its_parent() {
    let v: serde_json::Value =
        serde_json::from_slice(&ok(export(&report(), &["--format", "chrome"]))).unwrap();
    let xs: Vec<&serde_json::Value> = v["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "X")
        .collect();
    assert_eq!(xs.len(), 4);
    let span = |name: &str| {
        let e = xs.iter().find(|e| e["name"] == name).unwrap();
        let ts = e["ts"].as_f64().unwrap();
        (ts, ts + e["dur"].as_f64().unwrap())
    };
    let (main, a, b, c) = (
        span("app::main"),
        span("app::a"),
        span("app::b"),
        span("app::c"),
    );
    assert_eq!(main, (0.0, 32_000.0));
    assert_eq!(a, (0.0, 30_000.0));
    assert_eq!(b, (0.0, 20_000.0));
    assert_eq!(c, (30_000.0, 31_000.0));
}

#[test]
fn a_report_without_stacks_says_how_to_get_them() {
    let mut r = report();
    r.stacks = None;
    let out = export(&r, &["--format", "svg"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("HOTPATH_STACKS=1"), "{err}");
    let out = export(&report(), &["--format", "folded", "--weight", "cpu"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("hotpath-cpu"));
}
