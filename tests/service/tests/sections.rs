//! The conformance test of the sections table: one run with every registry in use gives a
//! report with a part in every section, and every section is walked through each consumer
//! of the report. A new section fails here until it has a JSON part, a table, a live
//! fragment and route, a console view, diff rows (or a stated reason why not), a
//! Prometheus encoding (or a stated reason) and a row limit set by the builder, its
//! variable and `#[hotpath::main]` (the builder's and the variables' are checked for
//! every section by the facade's own tests; `#[main]` calls the builder's method).

use hotpath_cli::console::{row_count, View};
use hotpath_cli::diff::{compared, diff, Compared};
use hotpath_live::prometheus::{coverage, Coverage};
use hotpath_report::{section_table, Report, Section};

fn full_report() -> Report {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_fork_all"));
    c.arg("report").env("HOTPATH_STACKS", "1");
    report_of(c)
}

/// The report of `c` (`fork_all` or a command that runs it), written as JSON to a file,
/// with no `HOTPATH_*` variable inherited.
fn report_of(mut c: std::process::Command) -> Report {
    let dir = tempfile::tempdir().unwrap();
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("HOTPATH_") {
            c.env_remove(k);
        }
    }
    let out = dir.path().join("report.json");
    let run = c
        .current_dir(dir.path())
        .env("HOTPATH_OUTPUT_FORMAT", "json")
        .env("HOTPATH_OUTPUT_PATH", &out)
        .output()
        .unwrap_or_else(|e| panic!("{c:?}: {e}"));
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    Report::from_json(&std::fs::read_to_string(&out).unwrap()).unwrap()
}

/// `fork_all icount` under `valgrind --tool=callgrind` (valgrind must be installed: the
/// test fails without it): the `icount` section's rows exist only in a run callgrind
/// counted, where nothing is timed, so they cannot be in the full report. Its dump goes
/// to the report's temporary directory (callgrind.out.<pid> there).
fn icount_report() -> Report {
    let mut c = std::process::Command::new("valgrind");
    c.args(["--tool=callgrind", env!("CARGO_BIN_EXE_fork_all"), "icount"]);
    report_of(c)
}

/// Issue 24's "every table fits 120 columns": the whole exit report of a run with every
/// section, at the default row limit, has no line wider than 120 characters (tables
/// leave out columns without data and break their titles; text lines wrap).
#[test]
fn every_line_of_the_report_fits_120_columns() {
    let r = full_report();
    let table = r.to_table(15);
    let wide: Vec<(usize, &str)> = table
        .lines()
        .map(|l| (l.chars().count(), l))
        .filter(|(n, _)| *n > 120)
        .collect();
    assert_eq!(wide, Vec::<(usize, &str)>::new(), "{table}");
}

#[test]
fn every_section_has_its_part_and_every_consumer_of_it() {
    let full = full_report();
    // Every section has a part in this run's report (icount its reason for no rows).
    assert_eq!(full.sections, Section::ALL, "{:?}", full.notes);
    let counted = icount_report();
    assert_eq!(counted.icount.as_ref().unwrap().unavailable, None);
    for s in Section::ALL {
        let r = if s == Section::Icount {
            &counted
        } else {
            &full
        };
        let json = serde_json::to_value(r).unwrap();
        let d = diff(r, r, 0.1);
        // The JSON part: its rows (not empty) and its other keys.
        if let Some(rows) = s.rows_key() {
            let list = json[rows]
                .as_array()
                .unwrap_or_else(|| panic!("{s}: no {rows}"));
            assert!(!list.is_empty(), "{s}: {rows} is empty");
        }
        if let Some(field) = s.function_field() {
            assert!(
                r.functions.iter().any(|f| !json_of(f)[field].is_null()),
                "{s}: no function has {field}"
            );
        }
        // The table.
        let mut table = String::new();
        section_table(r, s, 0, &mut table);
        assert!(table.lines().count() >= 2, "{s}: {table:?}");
        // The live fragment and its route.
        assert_eq!(Section::from_route(s.route()), Some(s));
        let fragment = r.fragment(s);
        assert_eq!(fragment["section"], s.name(), "{s}");
        for key in s
            .rows_key()
            .into_iter()
            .chain(s.extra_keys().iter().copied())
        {
            if key == "functions" {
                // The functions, with no section's per-function object.
                let names = |v: &serde_json::Value| -> Vec<serde_json::Value> {
                    v.as_array()
                        .unwrap()
                        .iter()
                        .map(|f| f["name"].clone())
                        .collect()
                };
                assert_eq!(names(&fragment[key]), names(&json[key]), "{s}");
                continue;
            }
            assert_eq!(fragment.get(key), json.get(key), "{s}: {key}");
        }
        if let Some(field) = s.function_field() {
            let functions = fragment["functions"].as_array().unwrap();
            assert!(
                functions.iter().any(|f| !f[field].is_null()),
                "{s}: {field}"
            );
        }
        // The console's views.
        assert!(!View::of(s).is_empty(), "{s}");
        for &v in View::of(s) {
            assert_eq!(v.section(), s, "{v:?}");
            assert!(View::ALL.contains(&v), "{v:?}");
            assert!(row_count(v, r) > 0, "{s}: view {v:?} has no row");
        }
        // hotpath diff.
        match compared(s) {
            Compared::Rows => assert!(
                d.changes.iter().any(|c| c.row.section() == Some(s)),
                "{s}: no diff row"
            ),
            Compared::On(row) => {
                assert_eq!(compared(row), Compared::Rows, "{s}");
                assert!(
                    d.changes.iter().any(|c| c.section() == Some(s)),
                    "{s}: no quantity compared"
                );
            }
            Compared::None(why) => assert!(why.len() > 20, "{s}: {why}"),
        }
        // Prometheus.
        match coverage(r, s) {
            Coverage::Families(names) => {
                assert!(!names.is_empty(), "{s}: no family");
                assert!(names.iter().all(|n| n.starts_with("hotpath_")), "{names:?}");
            }
            Coverage::With(other) => assert!(
                matches!(coverage(r, other), Coverage::Families(f) if !f.is_empty()),
                "{s}: with {other}"
            ),
            Coverage::None(why) => assert!(why.len() > 20, "{s}: {why}"),
        }
        // The row limit: its own or its owner's, with a builder method (also the
        // `#[main]` argument) and a variable.
        let owner = s
            .limit_owner()
            .unwrap_or_else(|| panic!("{s}: no row limit"));
        assert!(
            owner.limit_key().is_some_and(|k| k.ends_with("_limit")),
            "{s}"
        );
        assert!(
            owner.limit_env().is_some_and(|e| e.ends_with("_LIMIT")),
            "{s}"
        );
    }
    // Each view of the console shows one section.
    for v in View::ALL {
        assert!(View::of(v.section()).contains(&v), "{v:?}");
    }
}

fn json_of(f: &hotpath_report::Function) -> serde_json::Value {
    serde_json::to_value(f).unwrap()
}
