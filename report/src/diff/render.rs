//! The comparison as text tables (like the report printed at exit) and as Markdown for a
//! pull-request comment. Neither has colours.

use std::fmt::Write as _;

use crate::format::{bytes, count, duration, per_call, Table};
use crate::Section;

use super::{percent_label, Change, Delta, Diff, Summary, Unit, Unmatched, Value};

impl Diff {
    /// As plain text tables, in the style of the report printed at exit.
    pub fn to_table(&self) -> String {
        table(self)
    }

    /// As GitHub-flavoured Markdown, for a pull-request comment.
    pub fn to_markdown(&self) -> String {
        markdown(self)
    }
}

const HEADER: [&str; 7] = [
    "Entry", "Metric", "Base", "Head", "Delta", "Change", "Verdict",
];
const LEFT: [bool; 7] = [true, true, false, false, false, false, true];

/// The cells of a change, in the order of [`HEADER`].
fn cells(c: &Change) -> [String; 7] {
    let unit = c.metric.unit();
    let value = |v: Option<Value>| v.map_or_else(|| "-".to_string(), |v| amount(unit, v));
    [
        c.shown.clone(),
        c.metric.to_string(),
        value(c.base),
        value(c.head),
        c.delta()
            .map_or_else(|| "-".to_string(), |d| signed(unit, d)),
        change(c),
        c.verdict.to_string(),
    ]
}

fn amount(unit: Unit, v: Value) -> String {
    match (unit, v) {
        (_, Value::Real(x)) => per_call(x),
        (Unit::Time, Value::Int(x)) => duration(x),
        (Unit::Bytes, Value::Int(x)) => bytes(x),
        (Unit::Count | Unit::PerCall, Value::Int(x)) => count(x),
    }
}

/// `+140 ns`, `-1.50 KiB`, `+3`, `0`.
fn signed(unit: Unit, d: Delta) -> String {
    let (negative, zero, magnitude) = match d {
        Delta::Int(x) => (
            x < 0,
            x == 0,
            // |HEAD - BASE| of two u64 fits a u64.
            amount(unit, Value::Int(x.unsigned_abs() as u64)),
        ),
        Delta::Real(x) => {
            let a = x.abs();
            let m = if a != 0.0 && a < 0.005 {
                format!("{a:.2e}")
            } else {
                per_call(a)
            };
            (x < 0.0, x == 0.0, m)
        }
    };
    match (zero, negative) {
        (true, _) => magnitude,
        (false, true) => format!("-{magnitude}"),
        (false, false) => format!("+{magnitude}"),
    }
}

/// `+53.8%`, `-100.0%`, `0.0%`; `new` when BASE is 0; `n/a` when a side is missing.
fn change(c: &Change) -> String {
    match c.relative() {
        Some(0.0) => "0.0%".into(),
        Some(r) => format!("{:+.1}%", 100.0 * r),
        None if c.base.is_some() && c.head.is_some() => "new".into(),
        None => "n/a".into(),
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `2 slower, 1 faster, 14 noise, 5 changed exact, 1 added, 1 removed`, then the
/// not-comparable and unchanged counts when there are any.
fn summary_counts(s: &Summary) -> String {
    let mut out = format!(
        "{} slower, {} faster, {} noise, {} changed exact, {} added, {} removed",
        s.slower, s.faster, s.noise, s.changed_exact, s.added, s.removed
    );
    if s.not_comparable > 0 {
        let _ = write!(out, ", {} n/a", s.not_comparable);
    }
    if s.unchanged_exact > 0 {
        let _ = write!(out, "; {} exact unchanged", s.unchanged_exact);
    }
    out
}

fn status(s: &Summary) -> String {
    match s.regressions {
        0 => "no regression".into(),
        n => plural(n, "regression", "regressions"),
    }
}

/// `, min delta 1 ms` when a floor is set; `, 5 vs 5 runs` with several runs a side.
fn floor_label(d: &Diff) -> String {
    let mut out = String::new();
    if d.min_delta_ns != 0 {
        let _ = write!(out, ", min delta {}", duration(d.min_delta_ns));
    }
    if d.base_runs > 1 || d.head_runs > 1 {
        let _ = write!(out, ", {} vs {} runs", d.base_runs, d.head_runs);
    }
    out
}

/// ` and by at least 1 ms (per-call times: times their calls)` when a floor is set.
fn floor_clause(d: &Diff) -> String {
    if d.min_delta_ns == 0 {
        String::new()
    } else {
        format!(
            " and by at least {} (avg, pNN, I/O avg: multiplied by their calls or ops)",
            duration(d.min_delta_ns)
        )
    }
}

/// The rules, one sentence each.
fn legend(d: &Diff) -> Vec<String> {
    let mut rules = Vec::new();
    // Not under callgrind, where no time is compared.
    if d.changes.iter().any(|c| c.metric.unit() == Unit::Time) {
        rules.push(format!(
            "times (elapsed, total, self, avg, pNN, cpu, I/O avg): slower or faster when head \
             differs from base by more than {}{}, else noise; new: base was 0",
            percent_label(d.threshold),
            floor_clause(d)
        ));
    }
    rules.extend([
        "exact (calls, allocs, bytes, I/O ops and errors): every difference is shown; \
         n/a: in one report only"
            .into(),
        "regression: a slower time, more allocs or bytes per call, or more I/O ops or bytes; \
         a changed call count is not one by itself (the workload changed)"
            .into(),
    ]);
    if d.changes
        .iter()
        .any(|c| c.section() == Some(Section::Icount))
    {
        rules.push(
            "instructions (icount: inclusive, icount self): callgrind's counts, exact and the \
             same in every run of the same program and input; any increase is a regression, \
             however small"
                .into(),
        );
    }
    if d.base_runs > 1 || d.head_runs > 1 {
        rules.push(format!(
            "runs: base and head are medians of {} and {} runs; a change also needs a one-sided \
             Mann-Whitney U test over the runs at p <= {} (an exact quantity only when it varies \
             from run to run), else it is noise",
            d.base_runs,
            d.head_runs,
            d.significance.unwrap_or(super::SIGNIFICANCE)
        ));
    }
    rules
}

fn table(d: &Diff) -> String {
    let s = d.summary();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "[hotpath diff] {} | threshold {}{} | {}",
        d.caller,
        percent_label(d.threshold),
        floor_label(d),
        status(&s)
    );
    for n in &d.notes {
        let _ = writeln!(out, "note: {n}");
    }
    let _ = writeln!(out, "summary: {}", summary_counts(&s));

    let group = |title: &str, changes: &[&Change], out: &mut String| {
        out.push('\n');
        if changes.is_empty() {
            let _ = writeln!(out, "{title}: none");
            return;
        }
        let _ = writeln!(out, "{title} ({})", changes.len());
        let mut t = Table::new(HEADER.map(String::from).to_vec()).left(&LEFT);
        for c in changes {
            t.row(cells(c).to_vec());
        }
        t.render(out);
    };
    group("regressions, biggest first", &d.regressions(), &mut out);
    group("improvements, biggest first", &d.improvements(), &mut out);
    let others = d.others();
    if !others.is_empty() {
        group("other changes and noise", &others, &mut out);
    }
    let rows = |title: &str, rows: &[Unmatched], sign: char, out: &mut String| {
        if rows.is_empty() {
            return;
        }
        out.push('\n');
        let _ = writeln!(out, "{title} ({})", rows.len());
        for u in rows {
            let _ = writeln!(out, "{sign} {}: {}", u.shown, u.summary);
        }
    };
    rows("added, only in head", &d.added, '+', &mut out);
    rows("removed, only in base", &d.removed, '-', &mut out);
    out.push('\n');
    for l in legend(d) {
        let _ = writeln!(out, "{l}");
    }
    out
}

/// `` `name` `` with `|` escaped, safe in a table cell.
fn code(s: &str) -> String {
    let s = s.replace('|', "\\|");
    if s.contains('`') {
        format!("`` {s} ``")
    } else {
        format!("`{s}`")
    }
}

fn md_table(changes: &[&Change], with_verdict: bool, out: &mut String) {
    let n = if with_verdict { 7 } else { 6 };
    let _ = writeln!(out, "| {} |", HEADER[..n].join(" | "));
    let align: Vec<&str> = LEFT[..n]
        .iter()
        .map(|l| if *l { ":--" } else { "--:" })
        .collect();
    let _ = writeln!(out, "| {} |", align.join(" | "));
    for c in changes {
        let mut cells = cells(c);
        cells[0] = code(&cells[0]);
        let _ = writeln!(out, "| {} |", cells[..n].join(" | "));
    }
}

fn markdown(d: &Diff) -> String {
    let s = d.summary();
    let mut out = String::new();
    let _ = writeln!(out, "## hotpath diff: {}", status(&s));
    out.push('\n');
    let _ = writeln!(
        out,
        "{} (threshold {}{}, {})",
        summary_counts(&s),
        percent_label(d.threshold),
        floor_label(d),
        code(&d.caller)
    );
    if !d.notes.is_empty() {
        out.push('\n');
        for n in &d.notes {
            let _ = writeln!(out, "- note: {n}");
        }
    }
    let group = |title: &str, changes: &[&Change], out: &mut String| {
        out.push('\n');
        let _ = writeln!(out, "### {title} ({})", changes.len());
        out.push('\n');
        if changes.is_empty() {
            let _ = writeln!(out, "None.");
        } else {
            md_table(changes, false, out);
        }
    };
    group("Regressions", &d.regressions(), &mut out);
    group("Improvements", &d.improvements(), &mut out);

    let others = d.others();
    out.push('\n');
    let _ = writeln!(out, "<details>");
    let noise = others
        .iter()
        .filter(|c| c.verdict == super::Verdict::Noise)
        .count();
    let _ = writeln!(
        out,
        "<summary>Everything else: {noise} noise, {}, {} added, {} removed</summary>",
        plural(others.len() - noise, "other change", "other changes"),
        d.added.len(),
        d.removed.len()
    );
    if !others.is_empty() {
        out.push('\n');
        md_table(&others, true, &mut out);
    }
    let rows = |title: &str, rows: &[Unmatched], out: &mut String| {
        if rows.is_empty() {
            return;
        }
        out.push('\n');
        let _ = writeln!(out, "{title}:");
        out.push('\n');
        for u in rows {
            let _ = writeln!(out, "- {}: {}", code(&u.shown), u.summary);
        }
    };
    rows("Added, only in head", &d.added, &mut out);
    rows("Removed, only in base", &d.removed, &mut out);
    if s.unchanged_exact > 0 {
        out.push('\n');
        let _ = writeln!(
            out,
            "{} not listed.",
            plural(
                s.unchanged_exact,
                "unchanged exact quantity",
                "unchanged exact quantities"
            )
        );
    }
    out.push('\n');
    let _ = writeln!(out, "</details>");
    out.push('\n');
    for l in legend(d) {
        let _ = writeln!(out, "- {l}");
    }
    out
}
