//! The notes of a diff: what differs in how the two reports were made (callers, clocks,
//! percentiles, sampling rates, sections, CPU modes), then each report's own notes.

use crate::{percentile_label, Report, Section};

use crate::diff::percent_label;

/// What differs in how the two reports were made, then each report's own notes.
pub(crate) fn notes(base: &Report, head: &Report, compared: &[f64]) -> Vec<String> {
    let mut out = Vec::new();
    if base.caller != head.caller {
        out.push(format!(
            "callers differ: base {}, head {}",
            base.caller, head.caller
        ));
    }
    if base.clock != head.clock {
        out.push(format!(
            "clocks differ: base {}, head {}",
            base.clock, head.clock
        ));
    }
    if base.percentiles != head.percentiles {
        let list = |ps: &[f64]| {
            if ps.is_empty() {
                "none".to_string()
            } else {
                ps.iter()
                    .map(|p| format!("p{}", percentile_label(*p)))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        };
        out.push(format!(
            "percentiles differ: base {}; head {}; compared: {}",
            list(&base.percentiles),
            list(&head.percentiles),
            list(compared)
        ));
    }
    if base.time_sampling_rate != head.time_sampling_rate {
        out.push(format!(
            "time sampling rates differ: base {}, head {} of calls timed; sampled times are estimates",
            percent_label(base.time_sampling_rate),
            percent_label(head.time_sampling_rate)
        ));
    }
    if let (Some(b), Some(h)) = (base.io_time_sampling_rate, head.io_time_sampling_rate) {
        if b != h {
            out.push(format!(
                "I/O time sampling rates differ: base {}, head {} of operations timed",
                percent_label(b),
                percent_label(h)
            ));
        }
    }
    if base.sections != head.sections {
        let only = |a: &Report, b: &Report| -> Vec<String> {
            a.sections
                .iter()
                .filter(|s| !b.sections.contains(s))
                .map(|s| s.name().to_string())
                .collect()
        };
        let mut parts = Vec::new();
        let (ob, oh) = (only(base, head), only(head, base));
        if !ob.is_empty() {
            parts.push(format!("{} only in base", ob.join(", ")));
        }
        if !oh.is_empty() {
            parts.push(format!("{} only in head", oh.join(", ")));
        }
        if parts.is_empty() {
            parts.push(format!(
                "base {}, head {}",
                Section::join(&base.sections, ", "),
                Section::join(&head.sections, ", ")
            ));
        }
        out.push(format!(
            "sections differ: {}; alloc, cpu and icount are compared only when both reports \
             have them, threads never",
            parts.join("; ")
        ));
    }
    match (counted(base), counted(head)) {
        (true, true) => out.push(
            "both reports were counted by callgrind: times (valgrind's, not the program's) \
             are not compared, instructions are"
                .to_string(),
        ),
        (true, false) | (false, true) => {
            let (side, other, why) = if counted(base) {
                ("base", "head", head.icount.as_ref())
            } else {
                ("head", "base", base.icount.as_ref())
            };
            let why = why
                .and_then(|i| i.unavailable.clone())
                .unwrap_or_else(|| "no icount section".to_string());
            out.push(format!(
                "instructions were counted in {side} only ({other}: {why}): run both under \
                 valgrind --tool=callgrind to compare them"
            ));
        }
        (false, false) => {}
    }
    if let (Some(b), Some(h)) = (&base.cpu, &head.cpu) {
        if b.mode != h.mode {
            out.push(format!(
                "CPU modes differ: base {}, head {}",
                b.mode, h.mode
            ));
        }
    }
    for n in &base.notes {
        if head.notes.contains(n) {
            out.push(format!("both reports: {n}"));
        } else {
            out.push(format!("base report: {n}"));
        }
    }
    for n in head.notes.iter().filter(|n| !base.notes.contains(n)) {
        out.push(format!("head report: {n}"));
    }
    out
}

/// Whether callgrind counted the report's instructions: it ran under valgrind, where
/// nothing is timed but the elapsed time, which is valgrind's and not the program's.
pub(crate) fn counted(r: &Report) -> bool {
    r.icount.as_ref().is_some_and(|i| i.unavailable.is_none())
}
