//! `src/bin/criterion_ids.rs` run in criterion's test mode, as `cargo bench -- --test`
//! runs a benchmark: one report per benchmark id, with the id in the file name and as the
//! report's caller, and exact call counts with `HOTPATH_CRITERION_ITERATIONS`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The ids of `criterion_ids` and the file names they get from `out.json`.
const FILES: [(&str, &str); 3] = [
    ("triple", "out.triple.json"),
    ("group/pair/7", "out.group_pair_7.json"),
    ("group/batched", "out.group_batched.json"),
];

/// A fresh directory for one test's reports.
fn dir(test: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("criterion-{test}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs the benchmark program with `args` and `env` (and no other `HOTPATH_` variable),
/// JSON reports to `dir/out.json`.
fn run(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_criterion_ids"));
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("HOTPATH_") {
            c.env_remove(k);
        }
    }
    let out = c
        .args(args)
        .env("HOTPATH_OUTPUT_FORMAT", "json")
        .env("HOTPATH_OUTPUT_PATH", dir.join("out.json"))
        // Criterion's own files, if it writes any.
        .env("CRITERION_HOME", dir.join("criterion"))
        .envs(env.iter().copied())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The report files in `dir`, sorted.
fn written(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    names
}

#[cfg(feature = "hotpath")]
mod on {
    use super::*;
    use hotpath::report::Report;

    fn report(dir: &Path, file: &str) -> Report {
        let json = std::fs::read_to_string(dir.join(file)).unwrap();
        Report::from_json(&json).unwrap_or_else(|e| panic!("{file}: {e}: {json}"))
    }

    /// Calls of the function whose path ends with `::name`, 0 if the report has no row.
    fn calls(r: &Report, name: &str) -> u64 {
        r.functions
            .iter()
            .find(|f| f.name.ends_with(&format!("::{name}")))
            .map_or(0, |f| f.calls)
    }

    fn sorted(files: &[&str]) -> Vec<String> {
        let mut v: Vec<String> = files.iter().map(|f| f.to_string()).collect();
        v.sort();
        v
    }

    #[test]
    fn iterations_1000_give_exact_counts_in_one_report_per_id() {
        let d = dir("iterations");
        let out = run(&d, &["--test"], &[("HOTPATH_CRITERION_ITERATIONS", "1000")]);
        assert_eq!(written(&d), sorted(&FILES.map(|(_, f)| f)));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("HOTPATH_CRITERION_ITERATIONS"), "{stderr}");

        let triple = report(&d, "out.triple.json");
        assert_eq!(triple.caller, "triple");
        assert_eq!(calls(&triple, "step"), 3000);
        // Only what ran inside this id's routine.
        assert_eq!(calls(&triple, "pair_step"), 0);
        assert_eq!(calls(&triple, "consume"), 0);

        let pair = report(&d, "out.group_pair_7.json");
        assert_eq!(pair.caller, "group/pair/7");
        assert_eq!(calls(&pair, "pair_step"), 2000);
        assert_eq!(calls(&pair, "step"), 0);

        // iter_batched: each of the 1000 runs gets its own input from the setup.
        let batched = report(&d, "out.group_batched.json");
        assert_eq!(batched.caller, "group/batched");
        assert_eq!(calls(&batched, "make_input"), 1000);
        assert_eq!(calls(&batched, "consume"), 1000);
        assert_eq!(calls(&batched, "pair_step"), 0);
    }

    #[test]
    fn without_iterations_test_mode_runs_each_routine_once() {
        let d = dir("once");
        run(&d, &["--test"], &[]);
        assert_eq!(written(&d), sorted(&FILES.map(|(_, f)| f)));
        assert_eq!(calls(&report(&d, "out.triple.json"), "step"), 3);
        assert_eq!(calls(&report(&d, "out.group_pair_7.json"), "pair_step"), 2);
        let batched = report(&d, "out.group_batched.json");
        assert_eq!(
            (calls(&batched, "make_input"), calls(&batched, "consume")),
            (1, 1)
        );
    }

    /// `cargo test --benches` runs the program with neither `--bench` nor `--test`:
    /// criterion's test mode too.
    #[test]
    fn no_bench_flag_is_test_mode_too() {
        let d = dir("no-flag");
        run(&d, &[], &[("HOTPATH_CRITERION_ITERATIONS", "10")]);
        assert_eq!(calls(&report(&d, "out.triple.json"), "step"), 30);
    }

    #[test]
    fn a_filter_writes_only_the_reports_of_the_ids_it_runs() {
        let d = dir("filter");
        run(
            &d,
            &["--test", "--exact", "group/pair/7"],
            &[("HOTPATH_CRITERION_ITERATIONS", "5")],
        );
        assert_eq!(written(&d), ["out.group_pair_7.json"]);
        assert_eq!(calls(&report(&d, "out.group_pair_7.json"), "pair_step"), 10);
        let d = dir("filter-regex");
        run(&d, &["--test", "^group/"], &[]);
        assert_eq!(
            written(&d),
            sorted(&["out.group_pair_7.json", "out.group_batched.json"])
        );
    }

    #[test]
    fn an_invalid_iteration_count_warns_and_runs_once() {
        let d = dir("invalid");
        let out = run(&d, &["--test"], &[("HOTPATH_CRITERION_ITERATIONS", "0")]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(
                "HOTPATH_CRITERION_ITERATIONS=\"0\" is not valid (accepted: a positive integer)"
            ),
            "{stderr}"
        );
        assert_eq!(calls(&report(&d, "out.triple.json"), "step"), 3);
    }

    /// Benchmarking (`--bench`, as `cargo bench` passes it): criterion picks the
    /// iterations, the variable is refused once, and the report counts every run.
    #[test]
    fn benchmarking_ignores_iterations_with_a_warning() {
        let d = dir("bench");
        let out = run(
            &d,
            &[
                "--bench",
                "--exact",
                "triple",
                "--warm-up-time",
                "0.01",
                "--measurement-time",
                "0.02",
                "--sample-size",
                "10",
                "--noplot",
            ],
            &[("HOTPATH_CRITERION_ITERATIONS", "1000")],
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            stderr
                .matches("HOTPATH_CRITERION_ITERATIONS=1000 applies in criterion's test mode only")
                .count(),
            1,
            "{stderr}"
        );
        assert_eq!(written(&d), ["out.triple.json"]);
        let steps = calls(&report(&d, "out.triple.json"), "step");
        // Criterion's warm-up and ten samples, three calls per iteration.
        assert!(steps > 30 && steps.is_multiple_of(3), "{steps}");
    }
}

/// Without `hotpath`, `hotpath::criterion` is criterion's own: the same program runs as a
/// plain criterion benchmark and writes no report.
#[cfg(not(feature = "hotpath"))]
#[test]
fn off_the_program_is_plain_criterion_and_writes_no_report() {
    let d = dir("off");
    let out = run(&d, &["--test"], &[("HOTPATH_CRITERION_ITERATIONS", "1000")]);
    assert_eq!(written(&d), Vec::<String>::new());
    let stdout = String::from_utf8_lossy(&out.stdout);
    for (id, _) in FILES {
        assert!(stdout.contains(&format!("Testing {id}")), "{stdout}");
    }
}
