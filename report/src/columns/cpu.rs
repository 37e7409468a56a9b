//! Columns of the `cpu` table.

use super::common::{functions_by, percentile_columns, wall, Cell, Column, Columns, Show};
use crate::format::{count, duration};
use crate::model::{Function, FunctionCpu, Report};

/// A function with its CPU time: a row of the `cpu` table.
pub type CpuRow<'a> = (&'a Function, &'a FunctionCpu);

/// Whether the report's CPU time was read exactly (per call) rather than sampled.
pub fn cpu_exact(r: &Report) -> bool {
    r.cpu.as_ref().is_some_and(|c| c.mode == "exact")
}

/// `cpu`: CPU time and waiting per function. Rows: functions with a `cpu` object.
pub fn cpu(r: &Report) -> Columns<'_, CpuRow<'_>> {
    let mut c: Columns<'_, CpuRow<'_>> = vec![
        Column::left("Function", |(f, _): &CpuRow<'_>| {
            let mut name = f.display_name().to_string();
            if f.span {
                name.push_str(" (span)");
            } else if f.is_async {
                name.push_str(" (async)");
            }
            Cell::text(name, f.display_name())
        }),
        Column::right("Calls", |(f, _): &CpuRow<'_>| Cell::count(f.calls)),
        Column::right("Wall", |(f, _): &CpuRow<'_>| Cell::duration(wall(f))),
        Column::right("CPU", |(_, c): &CpuRow<'_>| Cell::duration(c.cpu_ns)),
        Column::right("Self CPU", |(_, c): &CpuRow<'_>| {
            Cell::duration(c.self_cpu_ns)
        }),
        Column::right("Wait", |(_, c): &CpuRow<'_>| Cell::duration(c.wait_ns)),
        Column::right("CPU %", |(_, c): &CpuRow<'_>| {
            Cell::num(format!("{:.1}%", 100.0 * c.cpu_share), c.cpu_share)
        }),
    ];
    if cpu_exact(r) {
        let percentiles =
            percentile_columns(r, "", |(_, c): &CpuRow<'_>| Some(&c.percentiles), duration);
        c.extend(percentiles.into_iter().map(|c| c.only(Show::Exit)));
        c.push(Column::right("Vol sw", |(_, c): &CpuRow<'_>| {
            Cell::opt(c.voluntary_switches, count)
        }));
        c.push(Column::right("Invol sw", |(_, c): &CpuRow<'_>| {
            Cell::opt(c.involuntary_switches, count)
        }));
    } else {
        c.push(Column::right("Samples", |(_, c): &CpuRow<'_>| {
            Cell::opt(c.samples, count)
        }));
    }
    c
}

/// The `cpu` rows of `r`, by CPU time.
pub fn cpu_rows(r: &Report) -> Vec<CpuRow<'_>> {
    functions_by(r, |f| f.cpu.as_ref(), |(_, c)| (c.cpu_ns, c.self_cpu_ns))
}

/// The exit report's `(unattributed)` row of the `cpu` table, in the exit columns of
/// [`cpu`].
pub fn cpu_unattributed(r: &Report) -> Option<Vec<String>> {
    let info = r.cpu.as_ref()?;
    let dash = || "-".to_string();
    let mut row = vec![
        "(unattributed)".to_string(),
        dash(),
        dash(),
        duration(info.unattributed_cpu_ns),
        duration(info.unattributed_cpu_ns),
        dash(),
        dash(),
    ];
    let rest = if cpu_exact(r) {
        r.percentiles.len() + 2
    } else {
        1
    };
    row.extend((0..rest).map(|_| dash()));
    Some(row)
}
