//! The `sql` section from diesel: counts, errors, no transaction-control rows, and the
//! program's own default instrumentation still receiving every event.

use hotpath_service_tests::report;

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
