//! The exit report's `cpu` section.

use std::fmt::Write as _;

use super::common::listed_functions;
use crate::columns;
use crate::format::{duration, percent};
use crate::model::Report;

pub(crate) fn cpu(r: &Report, limit: usize, out: &mut String) {
    let Some(info) = &r.cpu else {
        return;
    };
    listed_functions(
        out,
        limit,
        "cpu: CPU time and waiting per function, by CPU",
        columns::cpu(r),
        &columns::cpu_rows(r),
        columns::cpu_unattributed(r),
        |(f, _)| f,
    );
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
