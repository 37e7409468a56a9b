//! The `hotpath` binary end to end: `report` and `diff` on JSON files written to a
//! temporary directory, their output and exit statuses (0 fine, 1 regression with
//! `--fail-on-regression`, 2 usage or read error).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use hotpath::report::{Function, Percentiles, Report, WallNs};

mod common;

fn func(name: &str, calls: u64, mean: u64) -> Function {
    common::function(
        name,
        calls,
        Some(WallNs {
            total: mean * calls,
            self_: mean * calls,
            mean,
            min: mean,
            max: mean,
            percentiles: Percentiles(vec![(50.0, mean), (95.0, mean), (99.0, mean)]),
            hist: None,
        }),
    )
}

/// Three functions; `parse` takes `parse_ns` per call.
fn report(parse_ns: u64) -> Report {
    let mut r = common::report(vec![
        func("app::main", 1, 400_000_000),
        func("app::parse", 100_000, parse_ns),
        func("app::emit", 10, 20_000),
    ]);
    r.elapsed_ns = 500_000_000;
    r.overhead_ns = 2_500_000;
    r
}

/// A fresh directory for one test, under Cargo's temporary directory for integration
/// tests.
fn dir(test: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("report_cmd")
        .join(test);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temporary directory");
    d
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write the report");
    path
}

fn hotpath(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hotpath"))
        .args(args)
        .env_remove("HOTPATH_METRICS_AUTH_TOKEN")
        .output()
        .expect("run hotpath")
}

fn s(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

/// Checks the command was refused (status 2, nothing on stdout); returns its stderr.
fn refused(out: &Output) -> String {
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "");
    text(&out.stderr)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8 output")
}

#[test]
fn report_prints_exactly_the_exit_tables() {
    let d = dir("report_prints_exactly_the_exit_tables");
    let r = report(300);
    let file = write(&d, "report.json", &r.to_json_pretty());
    let out = hotpath(&["report", s(&file)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), r.to_table(0));
    assert_eq!(text(&out.stderr), "");
}

#[test]
fn report_limit_caps_the_rows() {
    let d = dir("report_limit_caps_the_rows");
    let r = report(300);
    let file = write(&d, "report.json", &r.to_json());
    let out = hotpath(&["report", s(&file), "--limit", "2"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert_eq!(stdout, r.to_table(2));
    assert!(stdout.contains("by total (2/3)"), "{stdout}");
    assert!(!stdout.contains("app::emit"), "{stdout}");
}

#[test]
fn report_of_a_missing_or_other_version_file_exits_2() {
    let d = dir("report_of_a_missing_or_other_version_file_exits_2");
    let missing = d.join("missing.json");
    let out = hotpath(&["report", s(&missing)]);
    let stderr = refused(&out);
    assert!(
        stderr.starts_with(&format!("hotpath: cannot read {}: ", missing.display())),
        "{stderr}"
    );

    let v3 = write(
        &d,
        "v3.json",
        &report(300)
            .to_json()
            .replace("\"schema_version\":2", "\"schema_version\":3"),
    );
    let out = hotpath(&["report", s(&v3)]);
    let stderr = refused(&out);
    assert!(stderr.contains("schema_version 3"), "{stderr}");

    let garbage = write(&d, "garbage.json", "not json");
    let out = hotpath(&["report", s(&garbage)]);
    let stderr = refused(&out);
    assert!(
        stderr.starts_with(&format!(
            "hotpath: {}: not a hotpath JSON report",
            garbage.display()
        )),
        "{stderr}"
    );
}

#[test]
fn diff_prints_the_comparison_and_exits_0_without_the_flag() {
    let d = dir("diff_prints_the_comparison_and_exits_0_without_the_flag");
    let (base, head) = (report(300), report(450));
    let b = write(&d, "base.json", &base.to_json());
    let h = write(&d, "head.json", &head.to_json());
    let out = hotpath(&["diff", s(&b), s(&h)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let expected = hotpath_cli::diff::diff(&base, &head, 0.1);
    assert!(expected.has_regression());
    assert_eq!(text(&out.stdout), expected.to_table());
    assert!(text(&out.stdout).starts_with("[hotpath diff] app::main | threshold 10% | "));
}

#[test]
fn diff_exits_1_on_a_regression_with_the_flag() {
    let d = dir("diff_exits_1_on_a_regression_with_the_flag");
    let b = write(&d, "base.json", &report(300).to_json());
    let slower = write(&d, "slower.json", &report(450).to_json());
    let faster = write(&d, "faster.json", &report(200).to_json());
    let flag = "--fail-on-regression";
    assert_eq!(
        hotpath(&["diff", s(&b), s(&slower), flag]).status.code(),
        Some(1)
    );
    assert_eq!(
        hotpath(&["diff", s(&b), s(&faster), flag]).status.code(),
        Some(0)
    );
    assert_eq!(
        hotpath(&["diff", s(&b), s(&b), flag]).status.code(),
        Some(0)
    );
    // +50 % is within a 60 % threshold, given either way.
    for t in ["60%", "0.6"] {
        let out = hotpath(&["diff", s(&b), s(&slower), flag, "--threshold", t]);
        assert_eq!(out.status.code(), Some(0), "{t}: {}", text(&out.stdout));
    }
}

#[test]
fn diff_exits_2_on_a_missing_file_another_schema_version_or_a_bad_threshold() {
    let d = dir("diff_exits_2_on_a_missing_file_another_schema_version_or_a_bad_threshold");
    let b = write(&d, "base.json", &report(300).to_json());
    let missing = d.join("missing.json");
    let out = hotpath(&["diff", s(&b), s(&missing), "--fail-on-regression"]);
    let stderr = refused(&out);
    assert!(
        stderr.starts_with(&format!("hotpath: cannot read {}: ", missing.display())),
        "{stderr}"
    );

    let v3 = write(
        &d,
        "v3.json",
        &report(300)
            .to_json_pretty()
            .replace("\"schema_version\": 2", "\"schema_version\": 3"),
    );
    let out = hotpath(&["diff", s(&v3), s(&b)]);
    assert_eq!(
        refused(&out),
        format!(
            "hotpath: {}: report has schema_version 3; this build reads versions 1 to 2 \
             (re-create the report with a matching hotpath version)\n",
            v3.display()
        )
    );

    for args in [
        ["--threshold", "-5%"],
        ["--threshold=-5%", "--fail-on-regression"],
    ] {
        let out = hotpath(&[&["diff", s(&b), s(&b)][..], &args[..]].concat());
        assert_eq!(
            refused(&out),
            "hotpath: --threshold: threshold \"-5%\" is negative: give the size of change \
             without a sign, such as 10%\n"
        );
    }
    let out = hotpath(&["diff", s(&b), s(&b), "--threshold", "ten"]);
    assert!(refused(&out).contains("threshold \"ten\" is not a number"));
}

#[test]
fn diff_markdown_starts_with_the_heading() {
    let d = dir("diff_markdown_starts_with_the_heading");
    let (base, head) = (report(300), report(450));
    let b = write(&d, "base.json", &base.to_json());
    let h = write(&d, "head.json", &head.to_json());
    let out = hotpath(&["diff", s(&b), s(&h), "--format", "markdown"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with("## hotpath diff: 5 regressions\n\n"),
        "{stdout}"
    );
    assert_eq!(
        stdout,
        hotpath_cli::diff::diff(&base, &head, 0.1).to_markdown()
    );
}

#[test]
fn diff_min_delta_turns_small_time_changes_into_noise() {
    let d = dir("diff_min_delta_turns_small_time_changes_into_noise");
    // parse: 300 → 450 ns a call (+150 ns), 100,000 calls (+15 ms in total).
    let (base, head) = (report(300), report(450));
    let b = write(&d, "base.json", &base.to_json());
    let h = write(&d, "head.json", &head.to_json());
    let run = |floor: &str| {
        hotpath(&[
            "diff",
            s(&b),
            s(&h),
            "--min-delta",
            floor,
            "--fail-on-regression",
        ])
    };

    // Each of parse's times moved by 15 ms over its calls (the per-call ones by 150 ns on
    // each of 100,000 calls), above a 200 ns floor.
    let out = run("200ns");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert_eq!(
        stdout,
        hotpath_cli::diff::diff_with_floor(&base, &head, 0.1, 200).to_table()
    );
    assert!(
        stdout.starts_with(
            "[hotpath diff] app::main | threshold 10%, min delta 200 ns | 5 regressions\n"
        ),
        "{stdout}"
    );

    // Nothing moved by 20 ms, not even multiplied out.
    let out = run("20ms");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(
        text(&out.stdout).contains("| no regression"),
        "{}",
        text(&out.stdout)
    );

    let out = run("5");
    assert_eq!(
        refused(&out),
        "hotpath: --min-delta: \"5\" has no unit: write for example 500ns, 20us, 1.5ms or 2s\n"
    );
}

#[test]
fn diff_of_two_directories_compares_every_json_run_in_them() {
    let d = dir("diff_of_two_directories_compares_every_json_run_in_them");
    // Each side's runs in a directory of its own; files that are not *.json are ignored.
    let side = |name: &str, parse_ns: &[u64]| {
        let sub = d.join(name);
        std::fs::create_dir_all(&sub).unwrap();
        for (i, ns) in parse_ns.iter().enumerate() {
            write(&sub, &format!("run{i}.json"), &report(*ns).to_json());
        }
        write(&sub, "notes.txt", "not a report");
        sub
    };
    let base_ns = [300, 310, 320, 330, 340];
    let apart_ns = [400, 410, 420, 430, 440];
    let base = side("base", &base_ns);
    let apart = side("apart", &apart_ns);
    // The medians as far apart, but two HEAD runs as fast as BASE's.
    let overlapping = side("overlapping", &[300, 305, 420, 430, 440]);
    let flag = "--fail-on-regression";

    let out = hotpath(&["diff", s(&base), s(&apart), flag]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let runs = |ns: &[u64]| ns.iter().map(|n| report(*n)).collect::<Vec<_>>();
    let expected = hotpath_cli::diff::diff_runs(
        &runs(&base_ns),
        &runs(&apart_ns),
        0.1,
        0,
        hotpath_cli::diff::SIGNIFICANCE,
    )
    .unwrap();
    assert_eq!(text(&out.stdout), expected.to_table());
    assert!(
        text(&out.stdout).starts_with("[hotpath diff] app::main | threshold 10%, 5 vs 5 runs | ")
    );

    let out = hotpath(&["diff", s(&base), s(&overlapping), flag]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    // A looser significance counts it: 16 of 25 pairs above is p = 69/252 = 0.27.
    let out = hotpath(&[
        "diff",
        s(&base),
        s(&overlapping),
        flag,
        "--significance",
        "0.3",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));

    // One run against five can never be significant, and the comparison says so.
    let one = write(&d, "one.json", &report(310).to_json());
    let out = hotpath(&["diff", s(&one), s(&apart), flag]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(text(&out.stdout).contains(
        "note: with 1 and 5 runs no change in a time can be significant at p <= 0.01; give each side at \
         least 5 runs\n"
    ));

    // A directory without a report, or a significance that is not a p-value, is an error.
    let empty = d.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let out = hotpath(&["diff", s(&base), s(&empty)]);
    assert_eq!(
        refused(&out),
        format!(
            "hotpath: {}: no *.json report in this directory\n",
            empty.display()
        )
    );
    let out = hotpath(&["diff", s(&base), s(&apart), "--significance", "5"]);
    assert_eq!(
        refused(&out),
        "hotpath: --significance: 5 is not a p-value between 0 and 1, such as 0.01\n"
    );
}
