//! The `sql` section from diesel: counts, errors, no transaction-control rows, and the
//! program's own default instrumentation still receiving every event.

use hotpath_service_tests::{assert_same_log, report};

#[test]
fn diesel_inserts_errors_and_the_users_instrumentation_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("diesel.sqlite");
    let run = report(env!("CARGO_BIN_EXE_sql_diesel"), &[path.to_str().unwrap()]);
    let r = &run.report;
    let sql = r.sql.as_ref().unwrap_or_else(|| panic!("{:?}", r.notes));
    let find = |q: &str, src: &str| {
        sql.iter()
            .find(|e| e.query == q && e.source.as_deref() == Some(src))
            .unwrap_or_else(|| panic!("no {q} from {src}: {sql:#?}"))
    };
    let ins = find("INSERT INTO t (a) VALUES (?)", "sql_diesel::insert50");
    assert_eq!((ins.calls, ins.errors), (50, Some(0)));
    assert_eq!(ins.backend, "diesel");
    assert_eq!(ins.rows_returned, None);
    let bad = find(
        "SELECT a FROM missing_table WHERE a = ?",
        "sql_diesel::broken",
    );
    assert_eq!((bad.calls, bad.errors), (1, Some(1)));
    let tx = find("INSERT INTO t (a) VALUES (?)", "sql_diesel::in_transaction");
    assert_eq!(tx.calls, 1);
    // Issued inside a tracing span: the span's row (issue 28 item 2), and its SQL wait.
    let spanned = find("SELECT a FROM t WHERE a = ?", "sql_diesel::select_in_span");
    assert_eq!((spanned.calls, spanned.errors), (7, Some(0)));
    let span = r
        .functions
        .iter()
        .find(|f| f.name == "sql_diesel::select_in_span")
        .expect("the span's row");
    assert!(span.span && span.calls == 1);
    let w = span.waits.as_ref().expect("the span's waits");
    assert!(w.sql_ns > 0 && w.sql_ns <= w.own_ns, "{w:?}");
    for e in sql {
        let first = e.query.split(' ').next().unwrap().to_ascii_uppercase();
        assert!(
            !["BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE"].contains(&first.as_str()),
            "{}",
            e.query
        );
    }
    // The user's instrumentation saw every query hotpath's saw, plus the transaction's
    // BEGIN and COMMIT, which hotpath leaves out.
    let ours: u64 = sql.iter().map(|e| e.calls).sum();
    let line = run
        .stderr
        .lines()
        .find(|l| l.starts_with("user_start_queries="))
        .unwrap();
    let users: u64 = line["user_start_queries=".len()..].parse().unwrap();
    assert_eq!(users, ours + 2, "{sql:#?}");
}

/// The same seeded script of diesel statements with the program's own instrumentation
/// alone and with hotpath's installed after it: the results and every event the
/// program's instrumentation saw are byte-identical, and the report counted every
/// statement and error the script met.
#[test]
fn diesel_instrumentation_changes_no_result_and_no_event() {
    let dir = tempfile::tempdir().unwrap();
    let report_path = dir.path().join("report.json");
    let run = |mode: &str, extra: &[&str]| {
        let db = dir.path().join(format!("{mode}.sqlite"));
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_diesel_diff"))
            .args([mode, db.to_str().unwrap()])
            .args(extra)
            .env_remove("HOTPATH_OUTPUT_FORMAT")
            .output()
            .unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(out.status.success(), "{mode}: {stderr}");
        (String::from_utf8(out.stdout).unwrap(), stderr)
    };
    let (plain, _) = run("plain", &[]);
    let (wrapped, tally) = run("wrapped", &[report_path.to_str().unwrap()]);
    for needle in [
        "UNIQUE constraint failed",
        "no such column",
        "begin 1",
        "commit 1",
        "rollback 1",
    ] {
        assert!(plain.contains(needle), "no {needle:?} in\n{plain}");
    }
    assert_same_log("diesel", &plain, &wrapped);

    let numbers: Vec<u64> = tally
        .trim()
        .split(' ')
        .map(|kv| kv.split('=').nth(1).unwrap().parse().unwrap())
        .collect();
    let r = hotpath::report::Report::from_json(&std::fs::read_to_string(&report_path).unwrap())
        .unwrap();
    let step: Vec<_> = r
        .sql
        .as_ref()
        .unwrap()
        .iter()
        .filter(|e| e.source.as_deref() == Some("diesel_diff::step"))
        .collect();
    let calls: u64 = step.iter().map(|e| e.calls).sum();
    let errors: u64 = step.iter().map(|e| e.errors.unwrap()).sum();
    assert_eq!((calls, errors), (numbers[0], numbers[1]), "{step:#?}");
}
