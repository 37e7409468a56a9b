//! Columns of the `timing` table.

use super::{name_column, percentile_title, Cell, Column, Columns};
use crate::format::{duration, per_call_duration, percent};
use crate::model::{Function, Report};

/// `timing`: wall time per function. Rows: `report.functions`.
pub fn timing(r: &Report) -> Columns<'_, Function> {
    let floor = r.clock_floor_ns;
    let per_call = move |v: Option<u64>| {
        v.map_or_else(Cell::missing, |v| {
            Cell::num(per_call_duration(v, floor), v as f64)
        })
    };
    let mut c: Columns<'_, Function> = vec![
        name_column("Function", |f: &Function| f),
        Column::right("Calls", |f: &Function| Cell::count(f.calls)),
        Column::right("Avg", move |f: &Function| {
            per_call(f.wall_ns.as_ref().map(|w| w.mean))
        }),
    ];
    for &p in &r.percentiles {
        c.push(Column::right(percentile_title(p), move |f: &Function| {
            per_call(f.wall_ns.as_ref().and_then(|w| w.percentiles.get(p)))
        }));
    }
    // With the time so far of calls still running, as the row's name says.
    let timed = |f: &Function| f.wall_ns.is_some() || f.running.is_some();
    c.push(Column::right("Total", move |f: &Function| {
        Cell::opt(timed(f).then(|| f.total_with_running()), duration)
    }));
    c.push(Column::right("Self", move |f: &Function| {
        Cell::opt(timed(f).then(|| f.self_with_running()), duration)
    }));
    let elapsed = r.elapsed_ns as f64;
    c.push(Column::right("% Total", move |f: &Function| {
        if timed(f) {
            let t = f.total_with_running() as f64;
            Cell::num(percent(t, elapsed), t)
        } else {
            Cell::missing()
        }
    }));
    c
}
