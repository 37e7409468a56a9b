//! `fork()` while another thread holds each registry lock of the profiler, with every
//! kind of registry in use: every child exits 0 and writes its own report (a registry
//! whose lock the fork handlers did not take would leave the child waiting forever).

use hotpath::report::Report;

#[test]
fn fork_while_each_registry_lock_is_held_and_every_child_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report.json");
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_fork_all"));
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("HOTPATH_") {
            c.env_remove(k);
        }
    }
    let run = c
        .env("HOTPATH_OUTPUT_FORMAT", "json")
        .env("HOTPATH_OUTPUT_PATH", &out)
        .env("HOTPATH_REPORT_FORKS", "1")
        .env("HOTPATH_STACKS", "1")
        .env("HOTPATH_TRACE", dir.path().join("trace.json"))
        .env("HOTPATH_METRICS_PORT", "0")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    let line = stderr
        .lines()
        .find(|l| l.starts_with("ranks="))
        .unwrap_or_else(|| panic!("{stderr}"));
    // Every kind of registry was in use, so every rank registered itself (the all-features
    // build: alloc and CPU too), and no child hung or failed.
    let n = hotpath_core::fork::Rank::COUNT;
    assert_eq!(
        line,
        format!("ranks={n} missing=[] forks={n} hung=0 failed=0"),
        "{stderr}"
    );
    // One report per child, each with the child's own calls on top of the parent's.
    let mut children = 0;
    for e in std::fs::read_dir(dir.path()).unwrap() {
        let path = e.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let Some(pid) = name.strip_prefix("report.json.") else {
            continue;
        };
        assert!(pid.parse::<u32>().is_ok(), "{name}");
        let r = Report::from_json(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let calls = |f: &str| r.functions.iter().find(|x| x.name == f).map(|x| x.calls);
        assert_eq!(calls("fork_all::child_work"), Some(1), "{name}");
        let locks = r.mutexes.as_ref().expect("mutexes");
        let count = locks.iter().find(|m| m.label.as_deref() == Some("count"));
        // Once in the parent before the forks, once in this child.
        assert_eq!(
            count.map(|m| m.lock.acquisitions),
            Some(2),
            "{name}: {locks:?}"
        );
        children += 1;
    }
    assert_eq!(children, n);
    // The parent's report.
    let r = Report::from_json(&std::fs::read_to_string(&out).unwrap()).unwrap();
    for s in [
        "io", "channels", "streams", "futures", "mutexes", "sql", "http", "server", "tokio",
    ] {
        assert!(
            r.sections.iter().any(|x| x.name() == s),
            "{s}: {:?}",
            r.sections
        );
    }
}
