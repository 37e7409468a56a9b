//! The `sql` section from sqlx against a real PostgreSQL server and a real SQLite file,
//! and from diesel against SQLite: exact counts, rows, sources (also for SQLite's driver
//! thread), N + 1, and the note when a global filter hides sqlx's events.

use hotpath::report::{Report, SqlEntry};
use hotpath_service_tests::{assert_same_log, report, Postgres};

const MS: u64 = 1_000_000;

fn row<'a>(r: &'a Report, query: &str) -> &'a SqlEntry {
    r.sql
        .as_ref()
        .unwrap_or_else(|| panic!("no sql section: {:?} {:?}", r.sections, r.notes))
        .iter()
        .find(|e| e.query == query)
        .unwrap_or_else(|| {
            let all: Vec<_> = r.sql.as_ref().unwrap().iter().map(|e| &e.query).collect();
            panic!("no row {query:?} in {all:?}")
        })
}

fn function_wait_sql(r: &Report, name: &str) -> u64 {
    let f = r.functions.iter().find(|f| f.name == name).unwrap();
    f.waits.as_ref().map_or(0, |w| w.sql_ns)
}

/// What both databases must show.
fn common_truths(r: &Report, bin: &str) {
    let ins = row(r, "INSERT INTO t (a) VALUES (?)");
    assert_eq!(ins.calls, 100);
    assert_eq!(ins.source.as_deref(), Some(&*format!("{bin}::insert_rows")));
    assert_eq!(ins.rows_affected, Some(100));
    assert_eq!(ins.per_source_call, Some(100.0));
    assert_eq!(ins.errors, None, "sqlx does not say");

    let all = row(r, "SELECT a FROM t");
    assert_eq!(all.calls, 1);
    assert_eq!(all.rows_returned, Some(100));
    assert_eq!(all.source.as_deref(), Some(&*format!("{bin}::select_all")));

    // N + 1: one list query and N = 5 detail queries per call of list_users.
    let list = row(r, "SELECT id FROM users ORDER BY id");
    let detail = row(r, "SELECT id FROM users WHERE id = ?");
    assert_eq!((list.calls, detail.calls), (4, 20));
    assert_eq!(list.per_source_call, Some(1.0));
    assert_eq!(detail.per_source_call, Some(5.0));
    assert_eq!(
        list.per_source_call.unwrap() + detail.per_source_call.unwrap(),
        6.0,
        "N + 1 queries per call"
    );
    assert_eq!(
        detail.source.as_deref(),
        Some(&*format!("{bin}::list_users"))
    );

    let inl = row(r, "SELECT a FROM t WHERE a IN (?)");
    assert_eq!(inl.calls, 2);
    assert_eq!(inl.rows_returned, Some(5));

    assert!(r.sections.iter().any(|s| s == "waits"), "{:?}", r.sections);
    assert!(function_wait_sql(r, &format!("{bin}::insert_rows")) > 0);
}

#[test]
fn postgres_queries_rows_sources_n_plus_one_and_pg_sleep() {
    let pg = Postgres::start();
    let run = report(env!("CARGO_BIN_EXE_sql_sqlx"), &["pg", &pg.url]);
    let r = &run.report;
    common_truths(r, "sql_sqlx");
    let slow = row(r, "SELECT pg_sleep(?)");
    assert_eq!(slow.calls, 3);
    let p50 = slow.duration_ns.percentiles.get(50.0).unwrap();
    assert!(p50 >= 50 * MS, "p50 {p50}");
    assert!(slow.duration_ns.total >= 150 * MS);
    // The SQL time is charged to the function that waited.
    assert!(function_wait_sql(r, "sql_sqlx::slow") >= 150 * MS);
}

#[test]
fn sqlite_queries_on_the_driver_thread_keep_their_source() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db.sqlite");
    let run = report(
        env!("CARGO_BIN_EXE_sql_sqlx"),
        &["sqlite", path.to_str().unwrap()],
    );
    common_truths(&run.report, "sql_sqlx");
    assert!(path.exists());
}

#[test]
fn a_global_info_filter_leaves_a_note_instead_of_an_empty_table() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db.sqlite");
    let run = report(
        env!("CARGO_BIN_EXE_sql_sqlx"),
        &["sqlite-filtered", path.to_str().unwrap()],
    );
    let r = &run.report;
    assert!(r.sql.is_none());
    assert!(!r.sections.iter().any(|s| s == "sql"));
    let notes: Vec<_> = r
        .notes
        .iter()
        .filter(|n| n.contains("sqlx::query"))
        .collect();
    assert_eq!(notes.len(), 1, "{:?}", r.notes);
    assert!(notes[0].contains("no sqlx::query event arrived"));
}

/// Runs `sql_diff` plain and wrapped on `target` (a fresh database each: `fresh(mode)`)
/// and checks the logs are byte-identical and the wrapped run's report counted every
/// statement and row the script ran and read.
fn sqlx_differential(kind: &str, fresh: impl Fn(&str) -> String) {
    let dir = tempfile::tempdir().unwrap();
    let report_path = dir.path().join("report.json");
    let run = |mode: &str, extra: &[&str]| {
        let target = fresh(mode);
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_sql_diff"))
            .args([mode, kind, &target])
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
    assert_eq!(plain.lines().count(), 300, "{plain}");
    // The script meets every case: errors (a duplicate key, a missing column), rolled
    // back and committed transactions, empty and non-empty reads.
    for needle in [
        "error ",
        "Tx { commit: true",
        "Tx { commit: false",
        "ok None",
        "ok Some(",
    ] {
        assert!(plain.contains(needle), "no {needle:?} in\n{plain}");
    }
    assert_same_log(&format!("sqlx on {kind}"), &plain, &wrapped);

    // What the script ran, against what the report counted from the measured function.
    let numbers: Vec<u64> = tally
        .trim()
        .split(' ')
        .map(|kv| kv.split('=').nth(1).unwrap().parse().unwrap())
        .collect();
    let (statements, rows, streamed) = (numbers[0], numbers[1], numbers[2]);
    let r = Report::from_json(&std::fs::read_to_string(&report_path).unwrap()).unwrap();
    let step: Vec<&SqlEntry> = r
        .sql
        .as_ref()
        .unwrap()
        .iter()
        .filter(|e| e.source.as_deref() == Some("sql_diff::step"))
        .filter(|e| {
            let first = e.query.split(' ').next().unwrap().to_ascii_uppercase();
            !["BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE"].contains(&first.as_str())
        })
        .collect();
    let calls: u64 = step.iter().map(|e| e.calls).sum();
    assert_eq!(calls, statements, "{step:#?}");
    // Rows: exact for the reads that take every row. A stream dropped early counts the
    // rows the driver read, which may run ahead of the program (SQLite's worker thread,
    // PostgreSQL's buffered messages): at least the rows taken.
    let (whole, stream): (Vec<&SqlEntry>, Vec<&SqlEntry>) = step
        .iter()
        .filter(|e| e.query.starts_with("SELECT"))
        .partition(|e| e.query != "SELECT k FROM kv ORDER BY k");
    let returned = |v: &[&SqlEntry]| v.iter().map(|e| e.rows_returned.unwrap()).sum::<u64>();
    assert_eq!(returned(&whole), rows, "{whole:#?}");
    assert!(returned(&stream) >= streamed, "{stream:#?} < {streamed}");
}

#[test]
fn sqlx_layer_changes_no_result_on_postgres() {
    let pg = Postgres::start();
    sqlx_differential("pg", |_| pg.url.clone());
}

#[test]
fn sqlx_layer_changes_no_result_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    sqlx_differential("sqlite", |mode| {
        dir.path()
            .join(format!("{mode}.sqlite"))
            .to_str()
            .unwrap()
            .to_string()
    });
}
