//! The console's `CPU` table.

use hotpath_report::columns;
use hotpath_report::format::{duration, percent};
use hotpath_report::{ProfilerStatus, Report, Section};

use super::common::{function_id, missing, Source, Table};

pub(crate) fn cpu(r: &Report, status: Option<&ProfilerStatus>) -> Table {
    let cols = columns::cpu(r);
    let mut t = Table::new("cpu: CPU time and waiting per function", &cols, "CPU");
    let Some(info) = r.cpu.as_ref().filter(|_| r.has(Section::Cpu)) else {
        t.empty = Some(missing(
            Section::Cpu,
            status,
            "no CPU time measured so far",
            "CPU time is not measured (HOTPATH_CPU_MODE=off, or HOTPATH_REPORT leaves cpu out)",
        ));
        return t;
    };
    for (i, f) in r.functions.iter().enumerate() {
        let Some(c) = &f.cpu else { continue };
        t.push(&cols, function_id(f), Source::Function(i), &(f, c));
    }
    let mut how = format!("cpu: {}", info.mode);
    if let Some(hz) = info.hz {
        how.push_str(&format!(" {hz} Hz"));
    }
    how.push_str(&format!(", {}", info.source));
    if let Some(why) = &info.fallback_reason {
        how.push_str(&format!(" (fallback: {why})"));
    }
    t.footer.push(how);
    let mut process = format!(
        "process CPU: {}; outside measured functions: {}",
        duration(info.process_cpu_ns),
        duration(info.unattributed_cpu_ns)
    );
    if let Some(sampled) = info.sampled_cpu_ns {
        process.push_str(&format!(
            "; samples account for {} ({})",
            duration(sampled),
            percent(sampled as f64, info.process_cpu_ns as f64)
        ));
    }
    t.footer.push(process);
    t
}

/// The console's `Instructions` table: the `icount` section of a report read from a file
/// (a live report has none: callgrind's counts are read at the end of the session).
pub(crate) fn icount(r: &Report, status: Option<&ProfilerStatus>) -> Table {
    let cols = columns::icount(r);
    let mut t = Table::new(
        "icount: instructions (Ir) per function under callgrind",
        &cols,
        "Instructions",
    );
    let info = r.icount.as_ref().filter(|_| r.has(Section::Icount));
    let why = info.and_then(|i| i.unavailable.clone());
    let Some(info) = info.filter(|_| why.is_none()) else {
        t.empty = Some(missing(
            Section::Icount,
            status,
            "no instructions counted",
            why.as_deref()
                .unwrap_or("instructions are counted under valgrind --tool=callgrind"),
        ));
        return t;
    };
    for (i, f) in r.functions.iter().enumerate() {
        let Some(c) = &f.icount else { continue };
        t.push(&cols, function_id(f), Source::Function(i), &(f, c));
    }
    t.footer.push(format!(
        "counted by {}",
        info.tool.as_deref().unwrap_or("callgrind")
    ));
    t
}
