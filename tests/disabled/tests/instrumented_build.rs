//! What an instrumented build compiles, by Cargo feature: `--features hotpath` compiles no
//! HTTP server and no async runtime (the live servers are the crate `hotpath-live`,
//! behind the features `hotpath-live`, `hotpath-prometheus` and `hotpath-mcp`); and a
//! program built without them that asks for a server at run time is told which feature
//! to add, and runs on. Without `hotpath`, each integration feature compiles the crate
//! it integrates and nothing else.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .find(|d| d.join("Cargo.lock").is_file())
        .expect("the workspace root holds Cargo.lock")
        .to_path_buf()
}

/// `cargo tree` of `hotpath`'s normal dependencies with `features`, each line prefixed
/// as `prefix` says (`none`, `depth`).
fn tree(features: &str, prefix: &str) -> String {
    let out = Command::new(env!("CARGO"))
        .current_dir(workspace())
        .args(["tree", "--offline", "-p", "hotpath", "-e", "normal"])
        .args(["--features", features])
        .args(["--prefix", prefix, "--format", "{p}"])
        .output()
        .expect("run cargo tree");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "cargo tree failed: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The packages `hotpath` builds (normal dependencies) with `features`.
fn closure(features: &str) -> BTreeSet<String> {
    tree(features, "none")
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

/// Crates of an HTTP server, an HTTP client or an async runtime.
const SERVER_OR_RUNTIME: [&str; 7] = [
    "hyper",
    "hyper-util",
    "tokio",
    "http",
    "http-body-util",
    "reqwest",
    "hotpath-live",
];

#[test]
fn the_hotpath_feature_compiles_no_http_server_or_runtime_and_the_live_feature_does() {
    let plain = closure("hotpath");
    let found: Vec<&str> = SERVER_OR_RUNTIME
        .into_iter()
        .filter(|c| plain.contains(*c))
        .collect();
    assert_eq!(found, Vec::<&str>::new(), "{plain:?}");
    for needed in ["hotpath-core", "hotpath-report", "hotpath-macros"] {
        assert!(plain.contains(needed), "{needed}: {plain:?}");
    }
    let live = closure("hotpath-live");
    for needed in ["hotpath-live", "hyper", "tokio"] {
        assert!(live.contains(needed), "{needed}: {live:?}");
    }
    // Prometheus and MCP each add their own crates, and imply the live servers.
    let prometheus = closure("hotpath-prometheus");
    assert!(prometheus.contains("prometheus") && prometheus.contains("hyper"));
    assert!(!live.contains("prometheus") && !live.contains("rmcp"));
}

/// `tracing` alone (no `hotpath`) is a layer that wants nothing: tracing's crates and
/// nothing of the profiler's runtime.
#[test]
fn the_tracing_feature_alone_compiles_no_profiler() {
    let tracing = closure("tracing");
    for needed in ["tracing-core", "tracing-subscriber"] {
        assert!(tracing.contains(needed), "{needed}: {tracing:?}");
    }
    for absent in ["hotpath-core", "hotpath-report", "serde_json", "regex-lite"] {
        assert!(!tracing.contains(absent), "{absent}: {tracing:?}");
    }
    let on = closure("hotpath,tracing");
    assert!(on.contains("hotpath-core") && on.contains("tracing-subscriber"));
}

/// A hello world with one `#[hotpath::measure]`, built `--features hotpath` (no live
/// feature) in a directory of its own, asked for the metrics and MCP servers at run
/// time: one warning for each naming the feature to add, and the report all the same.
#[test]
fn a_build_without_the_live_feature_names_it_when_asked_for_a_server() {
    let dir = workspace().join("target").join("instrumented-build");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let hotpath = workspace();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"hello\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
             publish = false\n\n[workspace]\n\n[dependencies]\n\
             hotpath = {{ path = {:?} }}\n\n[features]\nhotpath = [\"hotpath/hotpath\"]\n",
            hotpath.display().to_string()
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("src/main.rs"),
        "#[hotpath::measure]\nfn greet(name: &str) -> String {\n    format!(\"hello, {name}\")\n}\n\n\
         #[hotpath::main]\nfn main() {\n    println!(\"{}\", greet(\"world\"));\n}\n",
    )
    .unwrap();
    // The workspace's lock file pins the same versions the workspace tests use.
    std::fs::copy(hotpath.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    let build = Command::new(env!("CARGO"))
        .current_dir(&dir)
        .args(["build", "--offline", "--features", "hotpath", "--quiet"])
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .output()
        .expect("run cargo build");
    assert!(
        build.status.success(),
        "{}",
        String::from_utf8_lossy(&build.stderr)
    );
    let run = Command::new(dir.join("target/debug/hello"))
        .env("HOTPATH_METRICS_PORT", "0")
        .env("HOTPATH_MCP_PORT", "0")
        .env("HOTPATH_OUTPUT_FORMAT", "json")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("[hotpath] warning:"))
        .collect();
    assert_eq!(warnings.len(), 2, "{stderr}");
    assert!(
        warnings[0].contains("metrics server") && warnings[0].contains("hotpath-live"),
        "{}",
        warnings[0]
    );
    assert!(
        warnings[1].contains("MCP server") && warnings[1].contains("hotpath-mcp"),
        "{}",
        warnings[1]
    );
    let stdout = String::from_utf8_lossy(&run.stdout);
    let mut lines = stdout.lines();
    assert_eq!(lines.next(), Some("hello, world"));
    let report = lines.next().expect("the report");
    assert!(report.contains("\"name\":\"hello::greet\""), "{report}");
}

/// Every feature of `hotpath` that does not turn on `hotpath`, and the crates it is
/// about: without `hotpath` it may build those crates (and what they depend on), besides
/// `hotpath` and `hotpath-macros`, and nothing else.
const INTEGRATIONS: &[(&str, &[&str])] = &[
    ("tokio", &["tokio"]),
    ("parking_lot", &["parking_lot"]),
    ("async-lock", &["async-lock"]),
    ("crossbeam", &["crossbeam-channel"]),
    ("flume", &["flume"]),
    ("async-channel", &["async-channel"]),
    ("futures", &["futures-channel"]),
    ("futures-io", &[]),
    ("tracing", &["tracing-subscriber"]),
    // The layer is tracing-subscriber's; `tracing` is used with `hotpath` only, but sqlx
    // depends on it, so a program with sqlx builds it anyway.
    ("sqlx", &["tracing-subscriber", "tracing"]),
    ("diesel", &["diesel"]),
    // Not reqwest-middleware: `http!` is the client itself, and `ReqwestHttpMiddleware`
    // exists with `hotpath` only (as in hotpath 0.30).
    ("reqwest-0-12", &["reqwest"]),
    ("reqwest-0-13", &["reqwest"]),
    ("ureq-3", &["ureq"]),
    ("axum-0-8", &["axum"]),
    ("criterion-0-5", &["criterion"]),
    ("criterion-0-6", &["criterion"]),
    ("criterion-0-7", &["criterion"]),
    ("criterion-0-8", &["criterion"]),
    // The report model and its reader: the crate of the feature's name.
    ("report", &["hotpath-report"]),
];

/// The features of `hotpath`'s manifest and what each turns on.
fn features() -> BTreeMap<String, Vec<String>> {
    let manifest = std::fs::read_to_string(workspace().join("Cargo.toml")).unwrap();
    let section = manifest
        .split("\n[features]\n")
        .nth(1)
        .expect("a [features] table")
        .split("\n[")
        .next()
        .unwrap();
    section
        .lines()
        .filter(|l| !l.starts_with('#') && l.contains('='))
        .map(|l| {
            let (name, list) = l.split_once('=').unwrap();
            let list = list.trim();
            assert!(list.ends_with(']'), "a feature on one line, as here: {l}");
            let list = list.trim_start_matches('[').trim_end_matches(']');
            let items = list
                .split(',')
                .map(|i| i.trim().trim_matches('"').to_string())
                .filter(|i| !i.is_empty())
                .collect();
            (name.trim().to_string(), items)
        })
        .collect()
}

/// Whether `feature` turns on `hotpath`, directly or through another feature.
fn implies_hotpath(all: &BTreeMap<String, Vec<String>>, feature: &str) -> bool {
    feature == "hotpath"
        || all[feature]
            .iter()
            .any(|i| all.contains_key(i) && implies_hotpath(all, i))
}

/// The packages `hotpath` builds (normal dependencies) with `features` that are neither
/// `hotpath`, `hotpath-macros` (and what it builds) nor reachable from a crate named in
/// `roots`: `cargo tree` with depths, read back into a graph (a repeated package's
/// dependencies are listed at its first place only).
fn beyond(features: &str, roots: &[&str]) -> BTreeSet<String> {
    let stdout = tree(features, "depth");
    // Package (`name version`) -> its dependencies.
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut path: Vec<String> = Vec::new();
    for line in stdout.lines() {
        let digits = line.bytes().take_while(u8::is_ascii_digit).count();
        let depth: usize = line[..digits].parse().expect("a depth prefix");
        let mut words = line[digits..].split_whitespace();
        let package = format!("{} {}", words.next().unwrap(), words.next().unwrap());
        graph.entry(package.clone()).or_default();
        path.truncate(depth);
        if let Some(parent) = path.last() {
            graph.get_mut(parent).unwrap().insert(package.clone());
        }
        path.push(package);
    }
    let name = |p: &String| p.split(' ').next().unwrap().to_string();
    let mut reached = BTreeSet::new();
    let mut todo: Vec<&String> = graph
        .keys()
        .filter(|p| name(p) == "hotpath-macros" || roots.contains(&name(p).as_str()))
        .collect();
    for root in roots {
        assert!(
            todo.iter().any(|p| name(p) == *root),
            "--features {features} builds no {root}:\n{stdout}"
        );
    }
    while let Some(p) = todo.pop() {
        if reached.insert(p.clone()) {
            todo.extend(&graph[p]);
        }
    }
    graph
        .keys()
        .filter(|p| name(p) != "hotpath" && !reached.contains(*p))
        .cloned()
        .collect()
}

/// Without `hotpath`, an integration feature builds the crate it integrates (and its
/// dependencies) and nothing of the profiler's: no hotpath-core, no serde_json, no
/// hyper, no reqwest-middleware. Every feature that does not imply `hotpath` is in
/// [`INTEGRATIONS`], so a new one cannot be forgotten here.
#[test]
fn integration_features_without_hotpath_build_only_the_crates_they_integrate() {
    let all = features();
    let listed: BTreeSet<&str> = INTEGRATIONS.iter().map(|(f, _)| *f).collect();
    let off: BTreeSet<&str> = all
        .keys()
        .map(String::as_str)
        .filter(|f| *f != "default" && !implies_hotpath(&all, f))
        .collect();
    assert_eq!(listed, off, "features without `hotpath` vs INTEGRATIONS");
    let extra: Vec<(&str, BTreeSet<String>)> = std::thread::scope(|s| {
        let runs: Vec<_> = INTEGRATIONS
            .iter()
            .map(|(feature, roots)| s.spawn(move || (*feature, beyond(feature, roots))))
            .collect();
        runs.into_iter().map(|r| r.join().unwrap()).collect()
    });
    let extra: Vec<_> = extra.into_iter().filter(|(_, e)| !e.is_empty()).collect();
    assert!(
        extra.is_empty(),
        "features that build more than their crates: {extra:#?}"
    );
}
