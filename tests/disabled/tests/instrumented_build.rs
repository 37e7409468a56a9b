//! What an instrumented build compiles, by Cargo feature: `--features hotpath` compiles no
//! HTTP server and no async runtime (the live servers are the crate `hotpath-live`,
//! behind the features `hotpath-live`, `hotpath-prometheus` and `hotpath-mcp`); and a
//! program built without them that asks for a server at run time is told which feature
//! to add, and runs on.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .find(|d| d.join("Cargo.lock").is_file())
        .expect("the workspace root holds Cargo.lock")
        .to_path_buf()
}

/// The packages `hotpath` builds (normal dependencies) with `features`.
fn closure(features: &str) -> BTreeSet<String> {
    let out = Command::new(env!("CARGO"))
        .current_dir(workspace())
        .args(["tree", "--offline", "-p", "hotpath", "-e", "normal"])
        .args(["--features", features])
        .args(["--prefix", "none", "--format", "{p}"])
        .output()
        .expect("run cargo tree");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "cargo tree failed: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
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
