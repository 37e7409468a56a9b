//! `hotpath diff` on reports built with known numbers: exact verdicts, deltas, the
//! regression flag, threshold parsing, and the table and Markdown outputs as snapshots
//! (`cargo insta review` after a deliberate change).

use hotpath_report::{
    AllocTotal, CpuInfo, Function, FunctionAlloc, FunctionCpu, FunctionIcount, IcountInfo,
    IoDirection, IoEntry, Percentiles, Report, Section, WallNs,
};
mod common;

use hotpath_cli::diff::{
    diff, diff_runs, diff_with_floor, parse_min_delta, parse_threshold, Delta, Diff, Direction,
    Metric, MinDeltaError, RowKey, ThresholdError, Unit, Value, Verdict, SIGNIFICANCE,
};

// ---------------------------------------------------------------- report builders

/// Wall times with `mean = total / calls` and the given percentiles.
fn wall(total: u64, self_: u64, calls: u64, ps: &[(f64, u64)]) -> Option<WallNs> {
    Some(WallNs {
        total,
        self_,
        mean: total / calls,
        min: ps.first().map_or(0, |p| p.1),
        max: ps.last().map_or(0, |p| p.1),
        percentiles: Percentiles(ps.to_vec()),
        hist: None,
    })
}

fn func(name: &str, calls: u64, wall_ns: Option<WallNs>) -> Function {
    common::function(name, calls, wall_ns)
}

/// Allocations of `calls` calls, `count` and `bytes` in all.
fn alloc(count: u64, bytes: u64, calls: u64) -> Option<FunctionAlloc> {
    Some(FunctionAlloc {
        count,
        bytes,
        self_count: count,
        self_bytes: bytes,
        freed_bytes: bytes,
        retained_bytes: 0,
        per_call_count: count as f64 / calls as f64,
        per_call_bytes: bytes / calls,
        percentiles: Percentiles::default(),
        hist: None,
    })
}

fn cpu(cpu_ns: u64, wall_ns: u64) -> Option<FunctionCpu> {
    common::cpu(cpu_ns, cpu_ns, wall_ns)
}

fn dir(ops: u64, bytes: u64, errors: u64, mean_ns: Option<u64>) -> IoDirection {
    IoDirection {
        ops,
        bytes,
        errors,
        timed_ops: if mean_ns.is_some() { ops } else { 0 },
        total_ns: mean_ns.map_or(0, |m| m * ops),
        mean_ns,
        rate_bytes_per_sec: mean_ns.map(|m| bytes as f64 * 1e9 / (m * ops) as f64),
        percentiles: Percentiles::default(),
        hist: None,
    }
}

fn entry(name: &str, type_name: &str) -> IoEntry {
    IoEntry {
        name: name.into(),
        file: "src/main.rs".into(),
        line: 20,
        type_name: type_name.into(),
        instances: 1,
        read: IoDirection::default(),
        write: IoDirection::default(),
        flush: IoDirection::default(),
        shutdown: IoDirection::default(),
        seek: IoDirection::default(),
    }
}

/// A timing-only report of the given functions.
fn report(functions: Vec<Function>) -> Report {
    common::report(functions)
}

/// One function `app::f` of `calls` calls of `mean` ns each; a quarter of its time is
/// in measured children.
fn one(calls: u64, mean: u64) -> Report {
    let ps = [(50.0, mean), (95.0, mean), (99.0, mean)];
    report(vec![func(
        "app::f",
        calls,
        wall(mean * calls, mean * calls * 3 / 4, calls, &ps),
    )])
}

fn cpu_info(process_cpu_ns: u64) -> Option<CpuInfo> {
    Some(CpuInfo {
        mode: "sampled".into(),
        source: "perf_event task-clock".into(),
        hz: Some(1000),
        fallback_reason: None,
        hw_counters_unavailable: None,
        process_cpu_ns,
        sampled_cpu_ns: Some(process_cpu_ns),
        unattributed_cpu_ns: process_cpu_ns / 10,
    })
}

/// A realistic pair: HEAD made `parse_line` slower and allocate twice per call, `main`
/// and `fetch` faster, `fetch` runs more often, a cache was removed, an index added, the
/// Redis stream writes more.
fn pair() -> (Report, Report) {
    let ps = |p50, p95, p99| [(50.0, p50), (95.0, p95), (99.0, p99)];
    let with_sections = |functions, elapsed_ns, cpu_ns, allocs, alloc_bytes, io| {
        let mut r = report(functions);
        r.elapsed_ns = elapsed_ns;
        r.sections = vec![Section::Timing, Section::Alloc, Section::Cpu, Section::Io];
        r.io_time_sampling_rate = Some(1.0);
        r.cpu = cpu_info(cpu_ns);
        r.alloc_total = Some(AllocTotal {
            count: allocs,
            bytes: alloc_bytes,
            freed_bytes: alloc_bytes,
            unattributed_count: 100,
            unattributed_bytes: 400_000,
            unattributed_freed_bytes: 400_000,
        });
        r.io = Some(io);
        r
    };

    // BASE.
    let mut main = func(
        "app::main",
        1,
        wall(
            1_200_000_000,
            3_100_000,
            1,
            &ps(1_200_000_000, 1_200_000_000, 1_200_000_000),
        ),
    );
    main.cpu = cpu(1_000_000_000, 1_200_000_000);
    let mut parse = func(
        "app::parse::parse_line",
        200_000,
        wall(41_000_000, 41_000_000, 200_000, &ps(190, 260, 1_900)),
    );
    parse.cpu = cpu(40_000_000, 41_000_000);
    parse.alloc = alloc(200_000, 6_400_000, 200_000);
    let mut fetch = func(
        "app::net::fetch",
        16,
        wall(
            96_000_000,
            1_200_000,
            16,
            &ps(5_900_000, 7_700_000, 7_900_000),
        ),
    );
    fetch.is_async = true;
    fetch.cpu = cpu(1_100_000, 96_000_000);
    fetch.alloc = alloc(32, 48_000, 16);
    let mut checksum = func(
        "app::checksum",
        1,
        wall(812_000, 812_000, 1, &ps(812_000, 812_000, 812_000)),
    );
    checksum.label = Some("checksum".into());
    checksum.cpu = cpu(800_000, 812_000);
    let mut cache = func(
        "app::cache::warm",
        3,
        wall(
            30_000_000,
            30_000_000,
            3,
            &ps(10_000_000, 10_000_000, 10_000_000),
        ),
    );
    cache.cpu = cpu(29_000_000, 30_000_000);
    let mut file = entry("src/main.rs:20", "std::fs::File");
    file.read = dir(33, 1_048_576, 0, Some(60_600));
    let mut redis = entry("redis", "std::net::TcpStream");
    redis.write = dir(1_000, 28_000, 1, Some(9_000));
    redis.flush = dir(1_000, 0, 0, Some(100));
    let base = with_sections(
        vec![main, fetch, parse, cache, checksum],
        1_234_000_000,
        1_100_000_000,
        200_150,
        9_000_000,
        vec![file.clone(), redis.clone()],
    );

    // HEAD.
    let mut main = func(
        "app::main",
        1,
        wall(
            1_050_000_000,
            3_000_000,
            1,
            &ps(1_050_000_000, 1_050_000_000, 1_050_000_000),
        ),
    );
    main.cpu = cpu(1_000_000_000, 1_050_000_000);
    let mut parse = func(
        "app::parse::parse_line",
        200_000,
        wall(52_000_000, 52_000_000, 200_000, &ps(195, 400, 2_000)),
    );
    parse.cpu = cpu(51_000_000, 52_000_000);
    parse.alloc = alloc(400_000, 9_600_000, 200_000);
    let mut fetch = func(
        "app::net::fetch",
        20,
        wall(
            80_000_000,
            1_250_000,
            20,
            &ps(3_900_000, 5_000_000, 6_100_000),
        ),
    );
    fetch.is_async = true;
    fetch.cpu = cpu(1_150_000, 80_000_000);
    fetch.alloc = alloc(40, 60_000, 20);
    let mut checksum = func(
        "app::checksum",
        1,
        wall(812_000, 812_000, 1, &ps(812_000, 812_000, 812_000)),
    );
    checksum.label = Some("checksum".into());
    checksum.cpu = cpu(800_000, 812_000);
    let mut index = func(
        "app::index::build",
        1,
        wall(
            4_000_000,
            4_000_000,
            1,
            &ps(4_000_000, 4_000_000, 4_000_000),
        ),
    );
    index.cpu = cpu(3_900_000, 4_000_000);
    file.read.mean_ns = Some(61_000);
    redis.write = dir(1_200, 33_600, 1, Some(7_000));
    let head = with_sections(
        vec![main, fetch, parse, index, checksum],
        1_087_000_000,
        1_150_000_000,
        400_170,
        12_200_000,
        vec![file, redis],
    );
    (base, head)
}

fn verdict(d: &Diff, shown: &str, metric: &str) -> Verdict {
    d.find(shown, metric)
        .unwrap_or_else(|| panic!("no {metric} of {shown}"))
        .verdict
}

fn delta(d: &Diff, shown: &str, metric: &str) -> Option<Delta> {
    d.find(shown, metric)
        .unwrap_or_else(|| panic!("no {metric} of {shown}"))
        .delta()
}

// ---------------------------------------------------------------- threshold

#[test]
fn thresholds_parse_as_percentages_or_fractions() {
    assert_eq!(parse_threshold("10%"), Ok(0.1));
    assert_eq!(parse_threshold("0.1"), Ok(0.1));
    assert_eq!(parse_threshold("5.5%"), Ok(0.055));
    assert_eq!(parse_threshold(" 10 % "), Ok(0.1));
    assert_eq!(parse_threshold("0"), Ok(0.0));
    assert_eq!(parse_threshold("0%"), Ok(0.0));
    assert_eq!(parse_threshold("1"), Ok(1.0));
    assert_eq!(parse_threshold("150%"), Ok(1.5));
}

#[test]
fn bad_thresholds_are_refused_with_the_reason() {
    assert_eq!(parse_threshold(""), Err(ThresholdError::Empty));
    assert_eq!(parse_threshold("  "), Err(ThresholdError::Empty));
    for bad in ["abc", "%", "10%%", "ten%", "nan", "inf", "1e999", "0x10"] {
        assert_eq!(
            parse_threshold(bad),
            Err(ThresholdError::NotANumber(bad.into())),
            "{bad}"
        );
    }
    assert_eq!(
        parse_threshold("-5%"),
        Err(ThresholdError::Negative("-5%".into()))
    );
    assert_eq!(
        parse_threshold("-0.1"),
        Err(ThresholdError::Negative("-0.1".into()))
    );
    assert_eq!(
        parse_threshold("10"),
        Err(ThresholdError::Ambiguous("10".into()))
    );
    assert_eq!(
        parse_threshold("10").unwrap_err().to_string(),
        "threshold \"10\" is a fraction above 1 (1000%): write 10% for a percentage, \
         or 1000% if that is meant"
    );
    assert_eq!(
        parse_threshold("1.5").unwrap_err().to_string(),
        "threshold \"1.5\" is a fraction above 1 (150%): write 1.5% for a percentage, \
         or 150% if that is meant"
    );
    assert_eq!(
        parse_threshold("-5%").unwrap_err().to_string(),
        "threshold \"-5%\" is negative: give the size of change without a sign, such as 10%"
    );
    assert_eq!(
        parse_threshold("abc").unwrap_err().to_string(),
        "threshold \"abc\" is not a number: give a percentage such as 10% or a fraction such as 0.1"
    );
}

// ---------------------------------------------------------------- several runs a side

/// Runs of `app::f` (2 calls) with these means, and these allocations in all.
fn runs(means: &[u64], allocs: &[u64]) -> Vec<Report> {
    means
        .iter()
        .zip(allocs)
        .map(|(&mean, &count)| {
            let mut r = one(2, mean);
            r.sections.push(Section::Alloc);
            r.functions[0].alloc = alloc(count, count * 16, 2);
            r
        })
        .collect()
}

#[test]
fn several_runs_compare_medians_and_count_a_change_only_when_the_ranges_are_apart() {
    let base = runs(&[1_000, 1_100, 1_200], &[4, 4, 4]);
    let at = |head: &[Report]| diff_runs(&base, head, 0.1, 0, 0.05).unwrap();

    // Every head run above every base run, the medians 27 % apart: slower.
    let d = at(&runs(&[1_300, 1_400, 1_500], &[4, 4, 4]));
    let total = d.find("app::f", "total").unwrap();
    assert_eq!(total.verdict, Verdict::Slower);
    // The medians are shown: 2 x 1,100 ns against 2 x 1,400 ns.
    assert_eq!(
        (total.base, total.head),
        (Some(Value::Int(2_200)), Some(Value::Int(2_800)))
    );
    assert_eq!((d.base_runs, d.head_runs), (3, 3));
    assert!(d.has_regression());

    // The same medians, but one head run as fast as a base run: noise.
    let d = at(&runs(&[1_150, 1_400, 1_500], &[4, 4, 4]));
    assert_eq!(verdict(&d, "app::f", "total"), Verdict::Noise);
    assert_eq!(delta(&d, "app::f", "total"), Some(Delta::Int(600)));
    assert!(!d.has_regression());
    // One run of each side alone calls it slower.
    let d1 = diff(&base[1], &runs(&[1_400], &[4])[0], 0.1);
    assert_eq!(verdict(&d1, "app::f", "total"), Verdict::Slower);

    // Faster likewise: every head run below every base run.
    let d = at(&runs(&[700, 800, 990], &[4, 4, 4]));
    assert_eq!(verdict(&d, "app::f", "total"), Verdict::Faster);
    let d = at(&runs(&[700, 800, 1_050], &[4, 4, 4]));
    assert_eq!(verdict(&d, "app::f", "total"), Verdict::Noise);

    // Within the threshold stays noise however far apart the runs are.
    let tight = runs(&[1_000, 1_000, 1_000], &[4, 4, 4]);
    let d = diff_runs(
        &tight,
        &runs(&[1_050, 1_050, 1_050], &[4, 4, 4]),
        0.1,
        0,
        0.05,
    )
    .unwrap();
    assert_eq!(verdict(&d, "app::f", "total"), Verdict::Noise);
}

#[test]
fn exact_quantities_over_runs_change_when_constant_or_apart() {
    let times = [1_000, 1_000, 1_000];
    let at =
        |b: &[u64], h: &[u64]| diff_runs(&runs(&times, b), &runs(&times, h), 0.1, 0, 0.05).unwrap();
    // The same in every run of a side: every difference counts, as with one run.
    let d = at(&[4, 4, 4], &[6, 6, 6]);
    assert_eq!(verdict(&d, "app::f", "allocs"), Verdict::Increased);
    assert_eq!(verdict(&d, "app::f", "allocs/call"), Verdict::Increased);
    assert!(d.has_regression());
    assert_eq!(verdict(&d, "app::f", "calls"), Verdict::Unchanged);
    // Varying from run to run, ranges overlapping: noise, though the medians differ.
    let d = at(&[4, 5, 6], &[5, 6, 7]);
    let allocs = d.find("app::f", "allocs").unwrap();
    assert_eq!(allocs.verdict, Verdict::Noise);
    assert_eq!(
        (allocs.base, allocs.head),
        (Some(Value::Int(5)), Some(Value::Int(6)))
    );
    assert!(!d.has_regression());
    // Varying, ranges apart: increased.
    let d = at(&[4, 5, 6], &[7, 8, 9]);
    assert_eq!(verdict(&d, "app::f", "allocs"), Verdict::Increased);
    assert!(d.has_regression());
}

#[test]
fn one_run_a_side_is_the_plain_diff_and_a_side_without_runs_is_none() {
    let (base, head) = pair();
    assert_eq!(
        diff_runs(
            std::slice::from_ref(&base),
            std::slice::from_ref(&head),
            0.1,
            500,
            SIGNIFICANCE
        ),
        Some(diff_with_floor(&base, &head, 0.1, 500))
    );
    assert_eq!(diff_runs(&[], &[head], 0.1, 0, SIGNIFICANCE), None);
}

#[test]
fn rows_missing_from_some_runs_are_summarised_over_the_others_and_noted() {
    let mut base = runs(&[1_000, 1_100, 1_200], &[4, 4, 4]);
    let mut g = common::function("app::g", 3, wall(3_000, 3_000, 3, &[(50.0, 1_000)]));
    g.timed_calls = 3;
    base[0].functions.push(g.clone());
    g.calls = 5;
    base[2].functions.push(g);
    let head = runs(&[1_000, 1_100, 1_200], &[4, 4, 4]);
    let d = diff_runs(&base, &head, 0.1, 0, 0.05).unwrap();
    assert_eq!(d.removed.len(), 1);
    assert_eq!(d.removed[0].shown, "app::g");
    // Over the two runs that have it: the lower middle of 3 and 5 calls.
    assert!(
        d.removed[0].summary.starts_with("3 calls"),
        "{}",
        d.removed[0].summary
    );
    assert!(d
        .notes
        .contains(&"1 row of base is not in every one of its 3 runs, and summarised over the runs that have it".to_string()),
        "{:?}", d.notes);
    assert!(!d.has_regression());
}

// ---------------------------------------------------------------- verdicts

#[test]
fn times_beyond_the_threshold_are_slower_or_faster_within_it_noise() {
    let base = one(2, 1_000);
    let at = |mean| diff(&base, &one(2, mean), 0.1);
    // Exactly 10 % is within the threshold: only more than it counts.
    assert_eq!(verdict(&at(1_100), "app::f", "total"), Verdict::Noise);
    assert_eq!(verdict(&at(1_101), "app::f", "total"), Verdict::Slower);
    assert_eq!(verdict(&at(900), "app::f", "total"), Verdict::Noise);
    assert_eq!(verdict(&at(899), "app::f", "total"), Verdict::Faster);
    assert_eq!(verdict(&at(1_000), "app::f", "total"), Verdict::Noise);
    // Every time of the row is judged on its own.
    let d = at(1_200);
    for m in ["total", "self", "avg", "p50", "p95", "p99"] {
        assert_eq!(verdict(&d, "app::f", m), Verdict::Slower, "{m}");
    }
    assert_eq!(delta(&d, "app::f", "avg"), Some(Delta::Int(200)));
    assert_eq!(d.find("app::f", "avg").unwrap().relative(), Some(0.2));
    // A zero threshold: any difference in a time counts.
    assert_eq!(
        verdict(&diff(&base, &one(2, 1_001), 0.0), "app::f", "total"),
        Verdict::Slower
    );
}

#[test]
fn min_delta_parses_with_a_unit() {
    assert_eq!(parse_min_delta("0"), Ok(0));
    assert_eq!(parse_min_delta("500ns"), Ok(500));
    assert_eq!(parse_min_delta("20us"), Ok(20_000));
    assert_eq!(parse_min_delta("20µs"), Ok(20_000));
    assert_eq!(parse_min_delta(" 1.5ms "), Ok(1_500_000));
    assert_eq!(parse_min_delta("2s"), Ok(2_000_000_000));
    let refused = |s: &str| parse_min_delta(s).unwrap_err();
    assert_eq!(refused("100"), MinDeltaError::NoUnit("100".into()));
    assert_eq!(
        refused("100").to_string(),
        "\"100\" has no unit: write for example 500ns, 20us, 1.5ms or 2s"
    );
    assert_eq!(
        refused("3min"),
        MinDeltaError::UnknownUnit("min".into(), "3min".into())
    );
    assert_eq!(
        refused("3min").to_string(),
        "unknown unit \"min\" in \"3min\": use ns, us (or µs), ms or s"
    );
    assert_eq!(refused("ms"), MinDeltaError::NotADuration("ms".into()));
    assert_eq!(
        refused("ms").to_string(),
        "\"ms\" is not a duration: write for example 500ns, 20us, 1.5ms or 2s"
    );
    // A sign is not a digit: the whole text is taken for the unit.
    assert_eq!(
        refused("-1ms"),
        MinDeltaError::UnknownUnit("-1ms".into(), "-1ms".into())
    );
    assert_eq!(
        refused("1.2.3ms"),
        MinDeltaError::NotADuration("1.2.3ms".into())
    );
}

#[test]
fn changes_below_the_floor_are_noise_whatever_their_ratio() {
    // 1 µs → 2 µs per call, 2 calls: +100 % everywhere, +2 µs in total, +1 µs per call.
    let (base, head) = (one(2, 1_000), one(2, 2_000));
    let at = |floor| diff_with_floor(&base, &head, 0.1, floor);
    let no_floor = at(0);
    assert_eq!(no_floor.min_delta_ns, 0);
    assert_eq!(no_floor.regressions().len(), 6);
    // Per-call times are held to the floor over their 2 calls: +1 µs a call is +2 µs.
    // A floor of 1.5 µs: a change of exactly the floor counts, self (+1.5 µs) and the
    // rest (+2 µs) are at or above it.
    let d = at(1_500);
    assert_eq!(d.regressions().len(), 6);
    let d = at(1_501);
    assert_eq!(verdict(&d, "app::f", "self"), Verdict::Noise);
    for m in ["total", "avg", "p50", "p95", "p99"] {
        assert_eq!(verdict(&d, "app::f", m), Verdict::Slower, "{m}");
    }
    let d = at(2_001);
    assert!(!d.has_regression());
    assert_eq!(d.summary().noise, 7, "elapsed and the six times");
    // Many calls: +100 ns on each of a million calls is 100 ms, above a 1 ms floor; the
    // same on 3 calls (300 ns) is below it.
    let d = diff_with_floor(
        &one(1_000_000, 1_000),
        &one(1_000_000, 1_100),
        0.05,
        1_000_000,
    );
    for m in ["total", "avg", "p50", "p95", "p99"] {
        assert_eq!(verdict(&d, "app::f", m), Verdict::Slower, "{m}");
    }
    let d = diff_with_floor(&one(3, 1_000), &one(3, 1_100), 0.05, 1_000_000);
    for m in ["total", "avg", "p50", "p95", "p99"] {
        assert_eq!(verdict(&d, "app::f", m), Verdict::Noise, "{m}");
    }
    // Exact quantities ignore the floor.
    let d = diff_with_floor(&one(2, 1_000), &one(3, 1_000), 0.1, 1_000_000_000);
    assert_eq!(verdict(&d, "app::f", "calls"), Verdict::Increased);
    assert!(d
        .to_table()
        .starts_with("[hotpath diff] app::main | threshold 10%, min delta 1.00 s | "));
    assert!(d
        .to_table()
        .contains("by more than 10% and by at least 1.00 s (avg, pNN, I/O avg: multiplied by their calls or ops), else noise"));
}

#[test]
fn per_call_times_of_a_function_called_once_are_its_total() {
    let once = |total: u64, self_: u64| {
        let ps = [(50.0, total), (95.0, total), (99.0, total)];
        report(vec![func("app::f", 1, wall(total, self_, 1, &ps))])
    };
    let metrics = |d: &Diff| -> Vec<String> {
        d.changes
            .iter()
            .filter(|c| c.shown == "app::f")
            .map(|c| c.metric.to_string())
            .collect()
    };
    // Once in both, no children in either: the total says it all.
    let d = diff(&once(1_000, 1_000), &once(2_000, 2_000), 0.1);
    assert_eq!(metrics(&d), ["calls", "total"]);
    assert_eq!(d.regressions().len(), 1);
    // Children in one of them: self is compared.
    let d = diff(&once(1_000, 1_000), &once(2_000, 1_000), 0.1);
    assert_eq!(metrics(&d), ["calls", "total", "self"]);
    assert_eq!(verdict(&d, "app::f", "self"), Verdict::Noise);
    // Called twice in one of them: the per-call times are compared.
    let d = diff(&once(1_000, 1_000), &one(2, 1_000), 0.1);
    assert_eq!(
        metrics(&d),
        ["calls", "total", "self", "avg", "p50", "p95", "p99"]
    );
}

#[test]
fn a_slower_time_is_a_regression_a_faster_one_an_improvement() {
    let base = one(2, 1_000);
    let slower = diff(&base, &one(2, 1_200), 0.1);
    assert!(slower.has_regression());
    // Total, self, avg and three percentiles; elapsed is the same.
    assert_eq!(slower.regressions().len(), 6);
    assert!(slower.improvements().is_empty());
    let faster = diff(&base, &one(2, 800), 0.1);
    assert!(!faster.has_regression());
    assert_eq!(faster.improvements().len(), 6);
    let same = diff(&base, &base, 0.1);
    assert!(!same.has_regression());
    assert!(same.regressions().is_empty() && same.improvements().is_empty());
}

#[test]
fn changed_calls_are_exact_and_not_a_regression() {
    // Four more calls of the same duration each: the total grows by a third.
    let d = diff(&one(12, 1_000), &one(16, 1_000), 0.5);
    let calls = d.find("app::f", "calls").unwrap();
    assert_eq!(calls.verdict, Verdict::Increased);
    assert_eq!(calls.base, Some(Value::Int(12)));
    assert_eq!(calls.head, Some(Value::Int(16)));
    assert_eq!(calls.delta(), Some(Delta::Int(4)));
    assert!(!calls.is_regression() && !calls.is_improvement());
    assert_eq!(verdict(&d, "app::f", "total"), Verdict::Noise);
    assert!(!d.has_regression());
    let fewer = diff(&one(16, 1_000), &one(12, 1_000), 0.5);
    assert_eq!(verdict(&fewer, "app::f", "calls"), Verdict::Decreased);
    assert_eq!(delta(&fewer, "app::f", "calls"), Some(Delta::Int(-4)));
    assert!(!fewer.has_regression());
}

#[test]
fn more_allocations_per_call_are_a_regression_more_in_all_are_not() {
    // The times stay the same: only allocations and calls differ.
    let with_alloc = |calls, count, bytes| {
        let mut r = one(10, 1_000);
        r.sections.push(Section::Alloc);
        r.functions[0].calls = calls;
        r.functions[0].timed_calls = calls;
        r.functions[0].alloc = alloc(count, bytes, calls);
        r
    };
    let base = with_alloc(10, 10, 320);
    // Twice the calls, the same per call: more in all, not worse.
    let d = diff(&base, &with_alloc(20, 20, 640), 0.1);
    assert_eq!(verdict(&d, "app::f", "allocs"), Verdict::Increased);
    assert_eq!(delta(&d, "app::f", "allocs"), Some(Delta::Int(10)));
    assert_eq!(delta(&d, "app::f", "alloc bytes"), Some(Delta::Int(320)));
    assert_eq!(verdict(&d, "app::f", "allocs/call"), Verdict::Unchanged);
    assert_eq!(verdict(&d, "app::f", "bytes/call"), Verdict::Unchanged);
    assert!(!d.has_regression());
    // The same calls, one more allocation of 16 bytes each.
    let d = diff(&base, &with_alloc(10, 20, 480), 0.1);
    let per_call = d.find("app::f", "allocs/call").unwrap();
    assert_eq!(per_call.verdict, Verdict::Increased);
    assert_eq!(per_call.base, Some(Value::Real(1.0)));
    assert_eq!(per_call.head, Some(Value::Real(2.0)));
    assert_eq!(per_call.delta(), Some(Delta::Real(1.0)));
    assert!(per_call.is_regression());
    assert_eq!(verdict(&d, "app::f", "bytes/call"), Verdict::Increased);
    assert_eq!(delta(&d, "app::f", "bytes/call"), Some(Delta::Int(16)));
    assert!(d.has_regression());
    // And back: an improvement.
    let d = diff(&with_alloc(10, 20, 480), &base, 0.1);
    assert!(!d.has_regression());
    assert_eq!(d.improvements().len(), 2);
}

#[test]
fn alloc_and_cpu_are_compared_only_when_both_reports_have_them() {
    let mut head = one(2, 1_000);
    head.sections.push(Section::Alloc);
    head.functions[0].alloc = alloc(5, 50, 1);
    let d = diff(&one(2, 1_000), &head, 0.1);
    assert!(d.find("app::f", "allocs").is_none());
    assert_eq!(
        d.notes,
        [
            "sections differ: alloc only in head; alloc, cpu and icount are compared only when \
          both reports have them, threads never"
        ]
    );
}

#[test]
fn a_zero_base_has_no_ratio_and_a_missing_side_is_not_comparable() {
    let mut base = one(2, 1_000);
    let w = base.functions[0].wall_ns.as_mut().unwrap();
    w.self_ = 0;
    let mut head = one(2, 1_000);
    head.functions[0].wall_ns.as_mut().unwrap().self_ = 50;
    let d = diff(&base, &head, 0.1);
    let s = d.find("app::f", "self").unwrap();
    assert_eq!(s.verdict, Verdict::Slower);
    assert_eq!(s.relative(), None);
    assert_eq!(s.delta(), Some(Delta::Int(50)));
    // Zero in both: equal, noise.
    let d0 = diff(&base, &base, 0.1);
    let s0 = d0.find("app::f", "self").unwrap();
    assert_eq!((s0.verdict, s0.relative()), (Verdict::Noise, Some(0.0)));

    // Count-only mode in HEAD: no times to compare, the calls still are.
    let mut counted = one(2, 1_000);
    counted.functions[0].wall_ns = None;
    counted.functions[0].timed_calls = 0;
    counted.time_sampling_rate = 0.0;
    let na = diff(&base, &counted, 0.1);
    for m in ["total", "self", "avg", "p50", "p95", "p99"] {
        let c = na.find("app::f", m).unwrap();
        assert_eq!(c.verdict, Verdict::NotComparable, "{m}");
        assert_eq!((c.delta(), c.relative()), (None, None), "{m}");
    }
    assert_eq!(verdict(&na, "app::f", "calls"), Verdict::Unchanged);
    assert!(!na.has_regression());
    assert_eq!(na.summary().not_comparable, 6);
    assert_eq!(
        na.notes,
        [
            "time sampling rates differ: base 100%, head 0% of calls timed; sampled times are \
          estimates"
        ]
    );

    // Neither output divides by zero.
    for out in [
        d.to_table(),
        d.to_markdown(),
        na.to_table(),
        na.to_markdown(),
    ] {
        assert!(!out.contains("NaN") && !out.contains("inf"), "{out}");
    }
    let line = d
        .to_table()
        .lines()
        .find(|l| l.starts_with("app::f") && l.contains("self"))
        .unwrap()
        .to_string();
    assert_eq!(
        line.split_whitespace().collect::<Vec<_>>(),
        ["app::f", "self", "0", "ns", "50", "ns", "+50", "ns", "new", "slower"]
    );
    let line = na
        .to_table()
        .lines()
        .find(|l| l.starts_with("app::f") && l.contains(" p95 "))
        .unwrap()
        .to_string();
    assert_eq!(
        line.split_whitespace().collect::<Vec<_>>(),
        ["app::f", "p95", "1.00", "µs", "-", "-", "n/a", "n/a"]
    );
}

#[test]
fn rows_in_one_report_only_are_added_or_removed() {
    let (base, head) = pair();
    let d = diff(&base, &head, 0.1);
    let added: Vec<(&str, &str)> = d
        .added
        .iter()
        .map(|u| (u.shown.as_str(), u.summary.as_str()))
        .collect();
    assert_eq!(added, [("app::index::build", "1 call, 4.00 ms total")]);
    let removed: Vec<(&str, &str)> = d
        .removed
        .iter()
        .map(|u| (u.shown.as_str(), u.summary.as_str()))
        .collect();
    assert_eq!(removed, [("app::cache::warm", "3 calls, 30.0 ms total")]);
    assert_eq!(
        d.removed[0].row,
        RowKey::Function {
            name: "app::cache::warm".into(),
            label: None,
            nth: 0
        }
    );
    assert!(d.find("app::index::build", "total").is_none());

    // An I/O section in HEAD only: its entries are added.
    let mut io_head = one(2, 1_000);
    io_head.sections.push(Section::Io);
    let mut e = entry("dataset", "std::fs::File");
    e.read = dir(4, 3_000, 0, Some(500));
    e.seek = dir(2, 0, 0, Some(100));
    io_head.io = Some(vec![e]);
    let d = diff(&one(2, 1_000), &io_head, 0.1);
    assert_eq!(d.added.len(), 1);
    assert_eq!(d.added[0].shown, "io: dataset");
    assert_eq!(d.added[0].summary, "4 read ops (2.93 KiB), 2 seek ops");
}

#[test]
fn functions_match_by_name_and_label_io_by_name_and_type() {
    // The label is part of the identity: a labelled block is not its enclosing function.
    let mut labelled = func("app::run", 1, wall(1_000, 1_000, 1, &[]));
    labelled.label = Some("load".into());
    let plain = func("app::run", 1, wall(5_000, 5_000, 1, &[]));
    let base = report(vec![plain.clone(), labelled.clone()]);
    // Listed in another order: still matched.
    let mut slow = labelled.clone();
    slow.wall_ns = wall(2_000, 2_000, 1, &[]);
    let head = report(vec![slow, plain]);
    let d = diff(&base, &head, 0.1);
    assert!(d.added.is_empty() && d.removed.is_empty());
    assert_eq!(verdict(&d, "load", "total"), Verdict::Slower);
    assert_eq!(verdict(&d, "app::run", "total"), Verdict::Noise);

    // A block labelled like another function's name: told apart.
    let mut same = func("app::b", 1, wall(1_000, 1_000, 1, &[]));
    same.label = Some("app::a".into());
    let r = report(vec![func("app::a", 1, wall(1_000, 1_000, 1, &[])), same]);
    let d = diff(&r, &r, 0.1);
    assert!(d.find("app::a (fn)", "total").is_some());
    assert!(d.find("app::a (app::b)", "total").is_some());

    // The same name and label twice in a report: matched in order, the second shown #2.
    let twice = |t1, t2| {
        let mut a = func("app::run", 1, wall(t1, t1, 1, &[]));
        a.label = Some("step".into());
        let mut b = a.clone();
        b.line = 12;
        b.wall_ns = wall(t2, t2, 1, &[]);
        report(vec![a, b])
    };
    let d = diff(&twice(1_000, 5_000), &twice(1_000, 9_000), 0.1);
    assert_eq!(verdict(&d, "step", "total"), Verdict::Noise);
    assert_eq!(verdict(&d, "step #2", "total"), Verdict::Slower);

    // I/O: one name, two wrapped types: two rows, shown with the short type.
    let io = |read_ops| {
        let mut r = one(2, 1_000);
        r.sections.push(Section::Io);
        let mut buffered = entry("src/main.rs:40", "std::io::BufReader<std::fs::File>");
        buffered.read = dir(read_ops, 4_000, 0, None);
        let mut raw = entry("src/main.rs:40", "std::fs::File");
        raw.read = dir(2, 4_000, 0, Some(25_000));
        r.io = Some(vec![buffered, raw]);
        r
    };
    let d = diff(&io(10), &io(12), 0.1);
    assert!(d.added.is_empty() && d.removed.is_empty());
    let ops = d
        .find("io: src/main.rs:40 (BufReader<File>)", "read ops")
        .unwrap();
    assert_eq!(
        (ops.verdict, ops.delta()),
        (Verdict::Increased, Some(Delta::Int(2)))
    );
    assert!(ops.is_regression());
    assert_eq!(
        verdict(&d, "io: src/main.rs:40 (File)", "read ops"),
        Verdict::Unchanged
    );
}

#[test]
fn io_ops_and_bytes_up_are_regressions_errors_are_exact_changes() {
    let with_io = |write: IoDirection| {
        let mut r = one(2, 1_000);
        r.sections.push(Section::Io);
        let mut e = entry("redis", "std::net::TcpStream");
        e.write = write;
        r.io = Some(vec![e]);
        r
    };
    let base = with_io(dir(1_000, 28_000, 1, Some(9_000)));
    let d = diff(&base, &with_io(dir(1_000, 28_000, 3, Some(9_000))), 0.1);
    let errors = d.find("io: redis", "write errors").unwrap();
    assert_eq!(
        (errors.verdict, errors.delta()),
        (Verdict::Increased, Some(Delta::Int(2)))
    );
    assert!(!d.has_regression());
    let d = diff(&base, &with_io(dir(1_000, 30_000, 1, Some(9_000))), 0.1);
    assert_eq!(
        delta(&d, "io: redis", "write bytes"),
        Some(Delta::Int(2_000))
    );
    assert!(d.has_regression());
    // The mean operation time is a time: within the threshold it is noise.
    let d = diff(&base, &with_io(dir(1_000, 28_000, 1, Some(9_500))), 0.1);
    assert_eq!(verdict(&d, "io: redis", "write avg"), Verdict::Noise);
    let d = diff(&base, &with_io(dir(1_000, 28_000, 1, Some(7_000))), 0.1);
    assert_eq!(verdict(&d, "io: redis", "write avg"), Verdict::Faster);
    // Unused directions are not listed.
    assert!(d.find("io: redis", "read ops").is_none());
    assert_eq!(
        d.find("io: redis", "write ops").unwrap().metric,
        Metric::IoOps(Direction::Write)
    );
}

#[test]
fn only_percentiles_in_both_reports_are_compared_and_the_difference_is_noted() {
    let mut head = one(2, 1_000);
    head.percentiles = vec![50.0, 99.9];
    head.functions[0].wall_ns.as_mut().unwrap().percentiles =
        Percentiles(vec![(50.0, 1_000), (99.9, 5_000)]);
    let d = diff(&one(2, 1_000), &head, 0.1);
    assert!(d.find("app::f", "p50").is_some());
    for m in ["p95", "p99", "p99.9"] {
        assert!(d.find("app::f", m).is_none(), "{m}");
    }
    assert_eq!(
        d.notes,
        ["percentiles differ: base p50, p95, p99; head p50, p99.9; compared: p50"]
    );
    assert!(d.to_table().contains(
        "\nnote: percentiles differ: base p50, p95, p99; head p50, p99.9; compared: p50\n"
    ));
}

#[test]
fn how_the_reports_were_made_is_noted_when_it_differs() {
    let mut base = one(2, 1_000);
    base.notes = vec!["calls lost at thread exit: 3".into(), "same".into()];
    let mut head = one(2, 1_000);
    head.caller = "app::run".into();
    head.clock = "monotonic".into();
    head.time_sampling_rate = 0.055;
    head.notes = vec!["same".into()];
    let d = diff(&base, &head, 0.1);
    assert_eq!(
        d.notes,
        [
            "callers differ: base app::main, head app::run",
            "clocks differ: base tsc, head monotonic",
            "time sampling rates differ: base 100%, head 5.5% of calls timed; sampled times \
             are estimates",
            "base report: calls lost at thread exit: 3",
            "both reports: same",
        ]
    );
    assert_eq!(d.caller, "app::run");
}

#[test]
fn the_realistic_pair_has_the_expected_verdicts() {
    let (base, head) = pair();
    let d = diff(&base, &head, 0.1);
    assert_eq!(verdict(&d, "(process)", "elapsed"), Verdict::Faster);
    assert_eq!(verdict(&d, "(process)", "cpu"), Verdict::Noise);
    assert_eq!(verdict(&d, "(process)", "allocs"), Verdict::Increased);
    assert_eq!(
        verdict(&d, "app::parse::parse_line", "avg"),
        Verdict::Slower
    );
    assert_eq!(verdict(&d, "app::parse::parse_line", "p50"), Verdict::Noise);
    assert_eq!(
        delta(&d, "app::parse::parse_line", "p95"),
        Some(Delta::Int(140))
    );
    assert_eq!(verdict(&d, "app::net::fetch", "calls"), Verdict::Increased);
    assert_eq!(
        verdict(&d, "app::net::fetch", "allocs/call"),
        Verdict::Unchanged
    );
    assert_eq!(verdict(&d, "checksum", "total"), Verdict::Noise);
    assert_eq!(verdict(&d, "io: redis", "write ops"), Verdict::Increased);
    assert_eq!(verdict(&d, "io: redis", "flush ops"), Verdict::Unchanged);
    assert_eq!(
        verdict(&d, "io: src/main.rs:20", "read avg"),
        Verdict::Noise
    );
    assert!(d.notes.is_empty(), "{:?}", d.notes);
    let s = d.summary();
    assert_eq!(
        (
            s.slower,
            s.faster,
            s.noise,
            s.changed_exact,
            s.added,
            s.removed
        ),
        (4, 8, 11, 11, 1, 1)
    );
    assert_eq!(
        (s.regressions, s.unchanged_exact, s.not_comparable),
        (8, 11, 0)
    );
    // Called once in both: avg and percentiles equal the total and are left out; self is
    // compared only where it differs from the total somewhere.
    for m in ["avg", "p50", "p95", "p99"] {
        assert!(d.find("app::main", m).is_none(), "{m}");
        assert!(d.find("checksum", m).is_none(), "{m}");
    }
    assert_eq!(verdict(&d, "app::main", "self"), Verdict::Noise);
    assert!(d.find("checksum", "self").is_none());
    assert!(d.find("app::parse::parse_line", "self").is_none());
    assert_eq!(verdict(&d, "app::net::fetch", "self"), Verdict::Noise);
    // Biggest first: allocs/call +100 %, p95 +53.8 %, bytes/call +50 %, ...
    let order: Vec<String> = d
        .regressions()
        .iter()
        .map(|c| format!("{} {}", c.shown, c.metric))
        .collect();
    assert_eq!(
        order,
        [
            "app::parse::parse_line allocs/call",
            "app::parse::parse_line p95",
            "app::parse::parse_line bytes/call",
            "app::parse::parse_line cpu",
            "app::parse::parse_line total",
            "app::parse::parse_line avg",
            "io: redis write ops",
            "io: redis write bytes",
        ]
    );
    let magnitudes: Vec<f64> = d
        .regressions()
        .iter()
        .map(|c| c.relative().unwrap())
        .collect();
    assert!(
        magnitudes.windows(2).all(|w| w[0] >= w[1]),
        "{magnitudes:?}"
    );
}

#[test]
fn table() {
    let (base, head) = pair();
    insta::assert_snapshot!(diff(&base, &head, 0.1).to_table());
}

#[test]
fn markdown() {
    let (base, head) = pair();
    insta::assert_snapshot!(diff(&base, &head, 0.1).to_markdown());
}

#[test]
fn identical_reports_print_no_regression() {
    let (base, _) = pair();
    let d = diff(&base, &base, 0.1);
    assert!(!d.has_regression());
    let table = d.to_table();
    assert!(table.starts_with("[hotpath diff] app::main | threshold 10% | no regression\n"));
    assert!(
        table.contains("\nregressions, biggest first: none\n"),
        "{table}"
    );
    let md = d.to_markdown();
    assert!(md.starts_with("## hotpath diff: no regression\n"), "{md}");
    assert!(md.contains("### Regressions (0)\n\nNone.\n"), "{md}");
}

#[test]
fn markdown_escapes_pipes_and_has_no_ansi() {
    let mut f = func("app::f", 1, wall(1_000, 1_000, 1, &[]));
    f.label = Some("a|b".into());
    let base = report(vec![f.clone()]);
    f.wall_ns = wall(2_000, 2_000, 1, &[]);
    let d = diff(&base, &report(vec![f]), 0.1);
    let md = d.to_markdown();
    assert!(
        md.contains("| `a\\|b` | total | 1.00 µs | 2.00 µs | +1.00 µs | +100.0% |"),
        "{md}"
    );
    assert!(!md.contains('\x1b') && !d.to_table().contains('\x1b'));
}

// ---------------------------------------------------------------- instructions

/// A report of a run under `valgrind --tool=callgrind` (feature `hotpath-callgrind`), as
/// the fixture `tests/fixtures/src/bin/icount.rs` writes one: nothing timed (rate 0),
/// every call counted, and each function's `(name, calls, inclusive, self)`
/// instructions; the run took `elapsed_ns` under valgrind.
fn counted(elapsed_ns: u64, functions: &[(&str, u64, u64, u64)]) -> Report {
    let mut r = report(
        functions
            .iter()
            .map(|&(name, calls, inclusive, self_)| Function {
                timed_calls: 0,
                icount: Some(FunctionIcount {
                    calls,
                    inclusive,
                    self_,
                }),
                ..func(name, calls, None)
            })
            .collect(),
    );
    r.elapsed_ns = elapsed_ns;
    r.time_sampling_rate = 0.0;
    r.sections.push(Section::Icount);
    r.icount = Some(IcountInfo {
        tool: Some("callgrind-3.19.0".into()),
        dump: Some("callgrind.out.4242.1".into()),
        total: Some(9_000_000),
        unavailable: None,
    });
    r
}

/// `app::parse` at 1,000,000 instructions (400,000 its own), `app::main` at 5,000,000,
/// and `app::log` at 20,000.
const COUNTS: [(&str, u64, u64, u64); 3] = [
    ("app::main", 1, 5_000_000, 100_000),
    ("app::parse", 1_000, 1_000_000, 400_000),
    ("app::log", 10, 20_000, 20_000),
];

#[test]
fn one_percent_more_instructions_is_a_regression_and_rows_name_the_metric_icount() {
    let base = counted(400_000_000, &COUNTS);
    // HEAD: `parse` executes 1 % more of its own instructions (10,000 of 1,000,000),
    // and so does `main`, which calls it. Valgrind took 30 % longer: not compared.
    let mut head = counted(520_000_000, &COUNTS);
    head.functions[0].icount.as_mut().unwrap().inclusive = 5_010_000;
    let parse = head.functions[1].icount.as_mut().unwrap();
    parse.inclusive = 1_010_000;
    parse.self_ = 410_000;
    let d = diff(&base, &head, 0.1);
    assert!(d.has_regression());
    let rows: Vec<(&str, String, Verdict, Option<Delta>)> = d
        .regressions()
        .iter()
        .map(|c| (c.shown.as_str(), c.metric.to_string(), c.verdict, c.delta()))
        .collect();
    assert_eq!(
        rows,
        [
            (
                "app::parse",
                "icount self".into(),
                Verdict::Increased,
                Some(Delta::Int(10_000))
            ),
            (
                "app::parse",
                "icount".into(),
                Verdict::Increased,
                Some(Delta::Int(10_000))
            ),
            (
                "app::main",
                "icount".into(),
                Verdict::Increased,
                Some(Delta::Int(10_000))
            ),
        ]
    );
    assert_eq!(
        d.find("app::parse", "icount").unwrap().relative(),
        Some(0.01)
    );
    assert_eq!(verdict(&d, "app::main", "icount self"), Verdict::Unchanged);
    assert_eq!(verdict(&d, "app::log", "icount"), Verdict::Unchanged);
    // Times under valgrind are valgrind's: the elapsed time is not compared.
    assert!(d.find("(process)", "elapsed").is_none());
    assert!(d.changes.iter().all(|c| c.metric.unit() != Unit::Time));
    assert_eq!(
        d.notes[0],
        "both reports were counted by callgrind: times (valgrind's, not the program's) are \
         not compared, instructions are"
    );
    insta::assert_snapshot!(d.to_markdown());
}

#[test]
fn one_instruction_more_is_flagged_one_fewer_is_an_improvement() {
    let base = counted(400_000_000, &COUNTS);
    let mut head = counted(400_000_000, &COUNTS);
    head.functions[2].icount.as_mut().unwrap().self_ = 20_001;
    head.functions[1].icount.as_mut().unwrap().inclusive = 999_999;
    let d = diff(&base, &head, 0.1);
    assert_eq!(verdict(&d, "app::log", "icount self"), Verdict::Increased);
    assert_eq!(d.regressions().len(), 1);
    assert_eq!(verdict(&d, "app::parse", "icount"), Verdict::Decreased);
    assert_eq!(d.improvements().len(), 1);
}

#[test]
fn the_same_instruction_counts_are_never_flagged_whatever_valgrind_took() {
    let base = counted(400_000_000, &COUNTS);
    let head = counted(900_000_000, &COUNTS);
    let d = diff(&base, &head, 0.1);
    assert!(!d.has_regression());
    assert_eq!(d.summary().unchanged_exact, 9);
    assert_eq!(d.summary().changed_exact + d.summary().slower, 0);
    insta::assert_snapshot!(d.to_markdown());
}

#[test]
fn instructions_counted_on_one_side_only_are_not_comparable_and_noted() {
    let base = counted(400_000_000, &COUNTS);
    // HEAD ran outside valgrind: its icount section says why it is empty, and its
    // calls were timed.
    let mut head = report(
        COUNTS
            .iter()
            .map(|&(name, calls, _, _)| {
                func(name, calls, wall(calls * 1_000, calls * 1_000, calls, &[]))
            })
            .collect(),
    );
    head.elapsed_ns = base.elapsed_ns;
    head.sections.push(Section::Icount);
    head.icount = Some(IcountInfo {
        unavailable: Some(
            "not running under valgrind (run `valgrind --tool=callgrind <program>`)".into(),
        ),
        ..IcountInfo::default()
    });
    let d = diff(&base, &head, 0.1);
    assert_eq!(verdict(&d, "app::parse", "icount"), Verdict::NotComparable);
    assert_eq!(
        verdict(&d, "app::parse", "icount self"),
        Verdict::NotComparable
    );
    // One side timed nothing: times are compared as usual (the elapsed time is the
    // only one both have).
    assert_eq!(verdict(&d, "(process)", "elapsed"), Verdict::Noise);
    assert!(!d.has_regression());
    assert_eq!(
        d.notes,
        [
            "time sampling rates differ: base 0%, head 100% of calls timed; sampled times are \
             estimates",
            "instructions were counted in base only (head: not running under valgrind (run \
             `valgrind --tool=callgrind <program>`)): run both under valgrind --tool=callgrind \
             to compare them"
        ]
    );
}

// ---------------------------------------------------------------- data flow

/// A channel entry with `sent` messages and a mean latency.
fn channel_entry(name: &str, sent: u64, latency_mean: u64) -> hotpath_report::ChannelEntry {
    hotpath_report::ChannelEntry {
        name: name.into(),
        label: Some(name.into()),
        file: "src/main.rs".into(),
        line: 1,
        type_name: "u64".into(),
        instances: 1,
        backend: "std".into(),
        kind: "bounded".into(),
        capacity: Some(8),
        sent,
        received: sent,
        send_errors: 0,
        unread: 0,
        max_depth: 8,
        lagged: 0,
        send_blocked: hotpath_report::SendBlocked::default(),
        latency_ns: Some(hotpath_report::DistNs {
            count: sent,
            total: latency_mean * sent,
            mean: latency_mean,
            min: latency_mean,
            max: latency_mean,
            percentiles: Percentiles(vec![]),
            hist: None,
        }),
    }
}

#[test]
fn channels_are_compared_by_entry() {
    let mut base = report(vec![func("app::main", 1, wall(100, 100, 1, &[]))]);
    let mut head = base.clone();
    base.channels = Some(vec![channel_entry("jobs", 1_000, 10_000)]);
    head.channels = Some(vec![
        channel_entry("jobs", 1_200, 30_000),
        channel_entry("results", 5, 1_000),
    ]);
    let d = diff(&base, &head, 0.1);
    let jobs = |m: Metric| {
        d.changes
            .iter()
            .find(|c| c.shown == "channel: jobs" && c.metric == m)
            .unwrap_or_else(|| panic!("no {m} of channel: jobs in {:?}", d.changes))
    };
    let sent = jobs(Metric::FlowCount("sent"));
    assert_eq!(
        (sent.base, sent.head, sent.verdict),
        (
            Some(Value::Int(1_000)),
            Some(Value::Int(1_200)),
            Verdict::Increased
        )
    );
    assert_eq!(
        jobs(Metric::FlowAvg("latency avg")).verdict,
        Verdict::Slower
    );
    assert!(matches!(
        &d.added[..],
        [a] if a.shown == "channel: results" && a.summary == "5 sent, 5 received"
    ));
}

/// A report with one stream (`items` items, `busy_ns` inside its polls) and one future
/// (`calls` calls, `cancelled` of them cancelled, lifetime `life_ns` each).
fn with_stream_and_future(
    items: u64,
    busy_ns: u64,
    calls: u64,
    cancelled: u64,
    life_ns: u64,
) -> Report {
    let mut r = report(vec![func("app::main", 1, wall(100, 100, 1, &[]))]);
    let dist = |count: u64, v: u64| hotpath_report::DistNs {
        count,
        total: v * count,
        mean: v,
        min: v,
        max: v,
        percentiles: Percentiles(vec![]),
        hist: None,
    };
    r.streams = Some(vec![hotpath_report::StreamEntry {
        name: "rows".into(),
        label: Some("rows".into()),
        file: "src/db.rs".into(),
        line: 3,
        type_name: "Row".into(),
        instances: 1,
        items,
        polls: items + 1,
        pending: 0,
        completed: 1,
        dropped: 0,
        first_item_ns: Some(dist(1, 1_000)),
        busy_ns,
    }]);
    r.futures = Some(vec![hotpath_report::FutureEntry {
        name: "app::fetch".into(),
        label: Some("fetch".into()),
        file: "src/net.rs".into(),
        line: 9,
        calls,
        polls: 2 * calls,
        completed: calls - cancelled,
        cancelled,
        never_polled: 0,
        lifetime_ns: Some(dist(calls, life_ns)),
        busy_ns: Some(dist(calls, 1_000)),
    }]);
    r
}

#[test]
fn streams_and_futures_are_compared_by_entry() {
    let d = diff(
        &with_stream_and_future(100, 1_000_000, 10, 0, 5_000_000),
        &with_stream_and_future(150, 4_000_000, 10, 2, 5_100_000),
        0.1,
    );
    let items = d.find("stream: rows", "items").expect("items compared");
    assert_eq!(
        (items.base, items.head, items.verdict),
        (
            Some(Value::Int(100)),
            Some(Value::Int(150)),
            Verdict::Increased
        )
    );
    assert_eq!(
        d.find("stream: rows", "busy").unwrap().verdict,
        Verdict::Slower
    );
    let cancelled = d
        .find("future: fetch", "cancelled")
        .expect("cancelled compared");
    assert_eq!(
        (cancelled.base, cancelled.head, cancelled.verdict),
        (Some(Value::Int(0)), Some(Value::Int(2)), Verdict::Increased)
    );
    assert_eq!(
        d.find("future: fetch", "calls").unwrap().verdict,
        Verdict::Unchanged
    );
    // 2 % longer: within the 10 % threshold.
    assert_eq!(
        d.find("future: fetch", "lifetime avg").unwrap().verdict,
        Verdict::Noise
    );
}

/// A report of `app::f` (as [`one`]) with a mutex `state` of `acquisitions`, of which
/// `contended` waited `wait_ns` in all, and `app::f`'s waits.
fn with_lock(acquisitions: u64, contended: u64, wait_ns: u64) -> Report {
    let mut r = one(10, 1_000_000);
    let dist = |total: u64| hotpath_report::LockDist {
        total,
        mean: total / acquisitions,
        ..Default::default()
    };
    r.mutexes = Some(vec![hotpath_report::MutexEntry {
        name: "state".into(),
        label: Some("state".into()),
        file: "src/main.rs".into(),
        line: 7,
        backend: "std".into(),
        type_name: "std::sync::Mutex<u64>".into(),
        instances: 1,
        lock: hotpath_report::LockMode {
            acquisitions,
            contended,
            timed: acquisitions,
            wait_ns: Some(dist(wait_ns)),
            hold_ns: Some(dist(acquisitions * 100)),
            ..Default::default()
        },
    }]);
    r.functions[0].waits = Some(hotpath_report::FunctionWaits {
        own_ns: 10_000_000,
        lock_ns: wait_ns,
        other_ns: 10_000_000 - wait_ns,
        ..Default::default()
    });
    r
}

#[test]
fn locks_are_matched_by_name_type_and_mode_and_more_contention_is_a_regression() {
    let d = diff(
        &with_lock(1000, 10, 1_000_000),
        &with_lock(1000, 50, 4_000_000),
        0.1,
    );
    let c = d
        .find("mutex: state", "contended")
        .expect("contended compared");
    assert_eq!(
        (c.base, c.head, c.verdict),
        (
            Some(Value::Int(10)),
            Some(Value::Int(50)),
            Verdict::Increased
        )
    );
    assert!(c.is_regression());
    let w = d.find("mutex: state", "wait total").unwrap();
    assert_eq!(w.verdict, Verdict::Slower);
    let a = d.find("mutex: state", "acquisitions").unwrap();
    assert_eq!(a.verdict, Verdict::Unchanged);
    // The waiting function's lock wait, compared as a time.
    let fw = d.find("app::f", "wait lock").expect("waits compared");
    assert_eq!(
        (fw.base, fw.head, fw.verdict),
        (
            Some(Value::Int(1_000_000)),
            Some(Value::Int(4_000_000)),
            Verdict::Slower
        )
    );
    // A lock in one report only is added or removed.
    let d = diff(&one(10, 1_000_000), &with_lock(5, 0, 0), 0.1);
    assert_eq!(d.added.len(), 1);
    assert_eq!(d.added[0].shown, "mutex: state");
    assert_eq!(d.added[0].summary, "5 acquisitions, 0 contended");
}

/// `app::f` plus one SQL row of `calls` queries of `mean` ns each, from `app::f`.
fn with_sql(calls: u64, mean: u64) -> Report {
    let mut r = one(10, 1_000_000);
    let e: hotpath_report::SqlEntry = serde_json::from_value(serde_json::json!({
        "query": "SELECT a FROM t WHERE id = ?", "source": "app::f", "backend": "sqlx",
        "calls": calls, "errors": null, "rows_returned": calls, "rows_affected": 0,
        "per_source_call": calls as f64 / 10.0,
        "duration_ns": {"total": calls * mean, "mean": mean, "min": mean, "max": mean,
                        "p50": mean, "p95": mean, "p99": mean},
        "share_of_wall": 0.1
    }))
    .unwrap();
    r.sql = Some(vec![e]);
    r.sections.push(Section::Sql);
    r
}

#[test]
fn sql_rows_are_matched_by_query_and_source_and_compared_as_calls_and_times() {
    let d = diff(&with_sql(10, 1_000_000), &with_sql(60, 3_000_000), 0.1);
    let shown = "sql: SELECT a FROM t WHERE id = ? (app::f)";
    let calls = d.find(shown, "calls").expect("calls compared");
    assert_eq!(
        (calls.base, calls.head, calls.verdict),
        (
            Some(Value::Int(10)),
            Some(Value::Int(60)),
            Verdict::Increased
        )
    );
    assert_eq!(d.find(shown, "avg").unwrap().verdict, Verdict::Slower);
    assert_eq!(d.find(shown, "p50").unwrap().verdict, Verdict::Slower);
    // No error count from sqlx: not compared.
    assert!(d.find(shown, "errors").is_none());
    // A query in one report only is added.
    let d = diff(&one(10, 1_000_000), &with_sql(5, 1_000_000), 0.1);
    assert_eq!(d.added.len(), 1);
    assert_eq!(d.added[0].shown, shown);
    assert_eq!(d.added[0].summary, "5 calls, 5.00 ms total");
}

/// `app::f` plus one HTTP client row of 20 requests whose heads took 1 ms each and
/// whose bodies (`bodies` of them, with body timing) ended `body_mean` ns after the start.
fn with_http(bodies: u64, body_mean: u64) -> Report {
    let mut r = one(10, 1_000_000);
    let d = |n: u64, m: u64| {
        serde_json::json!({"total": n * m, "mean": m, "min": m, "max": m,
                           "p50": m, "p95": m, "p99": m})
    };
    let e: hotpath_report::HttpEntry = serde_json::from_value(serde_json::json!({
        "endpoint": "GET 127.0.0.1:{port}/feed", "label": null, "source": "app::f",
        "client": "reqwest", "calls": 20, "errors": 0, "status_1xx": 0, "status_2xx": 20,
        "status_3xx": 0, "status_4xx": 0, "status_5xx": 0, "ttfb_ns": d(20, 1_000_000),
        "bodies": bodies, "body_ns": if bodies > 0 { d(bodies, body_mean) } else { serde_json::Value::Null }
    }))
    .unwrap();
    r.http = Some(vec![e]);
    r.sections.push(Section::Http);
    r
}

#[test]
fn http_body_times_are_a_row_of_their_own() {
    let d = diff(&with_http(20, 10_000_000), &with_http(20, 30_000_000), 0.1);
    let head = "http: GET 127.0.0.1:{port}/feed (app::f)";
    let body = "http body: GET 127.0.0.1:{port}/feed (app::f)";
    // The heads took as long in both (a time within the threshold); the bodies three
    // times as long.
    assert_eq!(d.find(head, "avg").unwrap().verdict, Verdict::Noise);
    let avg = d.find(body, "avg").expect("body times compared");
    assert_eq!(
        (avg.base, avg.head, avg.verdict),
        (
            Some(Value::Int(10_000_000)),
            Some(Value::Int(30_000_000)),
            Verdict::Slower
        )
    );
    // Body timing in one report only: its body row is added, the request row compared.
    let d = diff(&with_http(0, 0), &with_http(20, 10_000_000), 0.1);
    assert_eq!(d.added.len(), 1);
    assert_eq!(d.added[0].shown, body);
    assert_eq!(d.added[0].summary, "20 calls, 200 ms total");
    assert!(d.find(head, "calls").is_some());
}
