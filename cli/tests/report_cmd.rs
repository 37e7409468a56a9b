//! The `hotpath` binary end to end: `report` and `diff` on JSON files written to a
//! temporary directory, their output and exit statuses (0 fine, 1 regression with
//! `--fail-on-regression`, 2 usage or read error).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use hotpath_report::{Function, Percentiles, Report, WallNs};

mod common;

/// `calls` calls of `mean` ns, every other figure different, so that a number in the
/// wrong column shows: self 4/5 of the total; p50 4/5 of the mean, p95 11/10, p99 6/5;
/// min half the mean, max twice.
fn func(name: &str, calls: u64, mean: u64) -> Function {
    common::function(
        name,
        calls,
        Some(WallNs {
            total: mean * calls,
            self_: mean * calls * 4 / 5,
            mean,
            min: mean / 2,
            max: mean * 2,
            percentiles: Percentiles(vec![
                (50.0, mean * 4 / 5),
                (95.0, mean * 11 / 10),
                (99.0, mean * 6 / 5),
            ]),
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

/// The header of `report(..)` as a table: 1 + 100,000 + 10 calls, 2.5 ms of overhead
/// in a 500 ms run.
const REPORT_HEADER: &str = "\
[hotpath] 500 ms | timing
caller: app::main | clock: tsc
profiler overhead: 24.6 ns per timed call; 100,011 calls ≈ 2.50 ms (0.5% of the run)
";

/// `report(300)` against `report(450)`: every time of parse half as long again (total
/// 30 → 45 ms, self 24 → 36 ms, per call 300 → 450 ns, p50 240 → 360, p95 330 → 495,
/// p99 360 → 540), biggest first.
const PARSE_SLOWER: &str = "\
Entry       Metric     Base     Head     Delta  Change  Verdict
---------------------------------------------------------------
app::parse  total   30.0 ms  45.0 ms  +15.0 ms  +50.0%  slower
app::parse  self    24.0 ms  36.0 ms  +12.0 ms  +50.0%  slower
app::parse  avg      300 ns   450 ns   +150 ns  +50.0%  slower
app::parse  p50      240 ns   360 ns   +120 ns  +50.0%  slower
app::parse  p95      330 ns   495 ns   +165 ns  +50.0%  slower
app::parse  p99      360 ns   540 ns   +180 ns  +50.0%  slower
";

/// What did not move: the run's 500 ms, main's total and self (one call: no per-call
/// rows), and each of emit's times (10 calls of 20 µs).
const UNCHANGED: &str = "\
Entry      Metric      Base     Head  Delta  Change  Verdict
------------------------------------------------------------
(process)  elapsed   500 ms   500 ms   0 ns    0.0%  noise
app::main  total     400 ms   400 ms   0 ns    0.0%  noise
app::main  self      320 ms   320 ms   0 ns    0.0%  noise
app::emit  total     200 µs   200 µs   0 ns    0.0%  noise
app::emit  self      160 µs   160 µs   0 ns    0.0%  noise
app::emit  avg      20.0 µs  20.0 µs   0 ns    0.0%  noise
app::emit  p50      16.0 µs  16.0 µs   0 ns    0.0%  noise
app::emit  p95      22.0 µs  22.0 µs   0 ns    0.0%  noise
app::emit  p99      24.0 µs  24.0 µs   0 ns    0.0%  noise
";

/// The legend under a diff table without `--min-delta`.
const LEGEND: &str = "\
times (elapsed, total, self, avg, pNN, cpu, I/O avg): slower or faster when head differs from base by more than 10%, else noise; new: base was 0
exact (calls, allocs, bytes, I/O ops and errors): every difference is shown; n/a: in one report only
regression: a slower time, more allocs or bytes per call, or more I/O ops or bytes; a changed call count is not one by itself (the workload changed)
";

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
    // Each number the report holds, in its row and column (% Total of the 500 ms run).
    let rows = "\
timing: wall time per function, by total (3)
Function      Calls      Avg      P50      P95      P99    Total     Self  % Total
----------------------------------------------------------------------------------
app::main         1   400 ms   320 ms   440 ms   480 ms   400 ms   320 ms    80.0%
app::parse  100,000   300 ns   240 ns   330 ns   360 ns  30.0 ms  24.0 ms     6.0%
app::emit        10  20.0 µs  16.0 µs  22.0 µs  24.0 µs   200 µs   160 µs     0.0%
Self: time not in measured children; app::main's 320 ms is its own work and that of the unmeasured functions it calls
";
    assert_eq!(text(&out.stdout), format!("{REPORT_HEADER}\n{rows}"));
    assert_eq!(text(&out.stderr), "");
}

#[test]
fn report_limit_caps_the_rows() {
    let d = dir("report_limit_caps_the_rows");
    let r = report(300);
    let file = write(&d, "report.json", &r.to_json());
    let out = hotpath(&["report", s(&file), "--limit", "2"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // The two rows with the largest totals; the columns narrow to what they show.
    let rows = "\
timing: wall time per function, by total (2/3)
Function      Calls     Avg     P50     P95     P99    Total     Self  % Total
------------------------------------------------------------------------------
app::main         1  400 ms  320 ms  440 ms  480 ms   400 ms   320 ms    80.0%
app::parse  100,000  300 ns  240 ns  330 ns  360 ns  30.0 ms  24.0 ms     6.0%
1 more not shown, most called: app::emit (10 calls); HOTPATH_LIMIT=0 shows all
Self: time not in measured children; app::main's 320 ms is its own work and that of the unmeasured functions it calls
";
    assert_eq!(text(&out.stdout), format!("{REPORT_HEADER}\n{rows}"));
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
            .replace("\"schema_version\":7", "\"schema_version\":8"),
    );
    let out = hotpath(&["report", s(&v3)]);
    let stderr = refused(&out);
    assert!(stderr.contains("schema_version 8"), "{stderr}");

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
    // 6 times slower, 9 that did not move, and the 3 call counts (unchanged, not listed).
    let expected = format!(
        "\
[hotpath diff] app::main | threshold 10% | 6 regressions
summary: 6 slower, 0 faster, 9 noise, 0 changed exact, 0 added, 0 removed; 3 exact unchanged

regressions, biggest first (6)
{PARSE_SLOWER}
improvements, biggest first: none

other changes and noise (9)
{UNCHANGED}
{LEGEND}"
    );
    assert_eq!(text(&out.stdout), expected);
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
            .replace("\"schema_version\": 7", "\"schema_version\": 8"),
    );
    let out = hotpath(&["diff", s(&v3), s(&b)]);
    assert_eq!(
        refused(&out),
        format!(
            "hotpath: {}: report has schema_version 8; this build reads versions 1 to 7 \
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
        stdout.starts_with(
            "## hotpath diff: 6 regressions\n\n6 slower, 0 faster, 9 noise, 0 changed exact, \
             0 added, 0 removed; 3 exact unchanged (threshold 10%, `app::main`)\n"
        ),
        "{stdout}"
    );
    // The same six rows as the table's regressions, as Markdown.
    let regressions = "\
### Regressions (6)

| Entry | Metric | Base | Head | Delta | Change |
| :-- | :-- | --: | --: | --: | --: |
| `app::parse` | total | 30.0 ms | 45.0 ms | +15.0 ms | +50.0% |
| `app::parse` | self | 24.0 ms | 36.0 ms | +12.0 ms | +50.0% |
| `app::parse` | avg | 300 ns | 450 ns | +150 ns | +50.0% |
| `app::parse` | p50 | 240 ns | 360 ns | +120 ns | +50.0% |
| `app::parse` | p95 | 330 ns | 495 ns | +165 ns | +50.0% |
| `app::parse` | p99 | 360 ns | 540 ns | +180 ns | +50.0% |

### Improvements (0)

None.
";
    assert!(stdout.contains(regressions), "{stdout}");
    for row in [
        "| `app::main` | self | 320 ms | 320 ms | 0 ns | 0.0% | noise |",
        "| `app::emit` | p99 | 24.0 µs | 24.0 µs | 0 ns | 0.0% | noise |",
    ] {
        assert!(stdout.contains(&format!("\n{row}\n")), "{row}: {stdout}");
    }
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

    // Each of parse's times moved by 12 to 18 ms over its calls (the per-call ones by
    // 120 to 180 ns on each of 100,000 calls), above a 200 ns floor.
    let out = run("200ns");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with(&format!(
            "[hotpath diff] app::main | threshold 10%, min delta 200 ns | 6 regressions\n\
             summary: 6 slower, 0 faster, 9 noise, 0 changed exact, 0 added, 0 removed; \
             3 exact unchanged\n\nregressions, biggest first (6)\n{PARSE_SLOWER}\n"
        )),
        "{stdout}"
    );
    assert!(stdout.contains(UNCHANGED), "{stdout}");

    // Nothing moved by 20 ms, not even multiplied out (p99: 180 ns x 100,000 = 18 ms).
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
    // The medians, 320 and 420 ns a call, compared: parse's times up by 31.2 %.
    let expected = format!(
        "\
[hotpath diff] app::main | threshold 10%, 5 vs 5 runs | 6 regressions
summary: 6 slower, 0 faster, 9 noise, 0 changed exact, 0 added, 0 removed; 3 exact unchanged

regressions, biggest first (6)
Entry       Metric     Base     Head     Delta  Change  Verdict
---------------------------------------------------------------
app::parse  total   32.0 ms  42.0 ms  +10.0 ms  +31.2%  slower
app::parse  self    25.6 ms  33.6 ms  +8.00 ms  +31.2%  slower
app::parse  avg      320 ns   420 ns   +100 ns  +31.2%  slower
app::parse  p50      256 ns   336 ns    +80 ns  +31.2%  slower
app::parse  p95      352 ns   462 ns   +110 ns  +31.2%  slower
app::parse  p99      384 ns   504 ns   +120 ns  +31.2%  slower

improvements, biggest first: none

other changes and noise (9)
{UNCHANGED}
{LEGEND}\
runs: base and head are medians of 5 and 5 runs; a change also needs a one-sided \
Mann-Whitney U test over the runs at p <= 0.01 (an exact quantity only when it varies \
from run to run), else it is noise
"
    );
    assert_eq!(text(&out.stdout), expected);

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
