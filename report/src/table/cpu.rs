//! The exit report's `cpu` section.

use std::fmt::Write as _;

use super::{heading, hidden_functions, table};
use crate::columns;
use crate::format::{duration, percent};
use crate::model::{Function, Report};

pub(super) fn cpu(r: &Report, limit: usize, out: &mut String) {
    let Some(info) = &r.cpu else {
        return;
    };
    let rows = columns::cpu_rows(r);
    let n = heading(
        out,
        limit,
        rows.len(),
        "cpu: CPU time and waiting per function, by CPU",
    );
    table(columns::cpu(r), &rows[..n], columns::cpu_unattributed(r)).render(out);
    let rest: Vec<&Function> = rows[n..].iter().map(|(f, _)| *f).collect();
    hidden_functions(&rest, out);
    let _ = write!(out, "process CPU: {}", duration(info.process_cpu_ns));
    if let Some(sampled) = info.sampled_cpu_ns {
        let _ = write!(
            out,
            "; samples account for {} ({})",
            duration(sampled),
            percent(sampled as f64, info.process_cpu_ns as f64)
        );
    }
    out.push('\n');
    if let Some(why) = &info.hw_counters_unavailable {
        let _ = writeln!(out, "instructions and cycles not reported: {why}");
    }
}
