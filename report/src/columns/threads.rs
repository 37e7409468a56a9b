//! Columns of the `threads` table.

use super::common::{Cell, Column, Columns, Show};
use crate::format::bytes;
use crate::model::ThreadRow;

/// `threads`: per thread. Rows: `report.threads`.
pub fn threads(rows: &[ThreadRow]) -> Columns<'static, ThreadRow> {
    let pct = |p: f64| Cell::num(format!("{p:.1}%"), p);
    let mut c: Columns<'static, ThreadRow> = vec![
        Column::left("Thread", |t: &ThreadRow| {
            let mut name = t.name.clone();
            if t.profiler {
                name.push_str(" (profiler)");
            }
            Cell::text(name, t.name.clone())
        }),
        Column::right("TID", |t: &ThreadRow| {
            Cell::num(t.tid.to_string(), t.tid as f64)
        }),
        Column::right("State", |t: &ThreadRow| {
            Cell::text(t.state.clone(), t.state.clone())
        })
        .text(),
        Column::right("CPU avg", move |t: &ThreadRow| pct(t.cpu_percent_avg)),
        Column::right("CPU max", move |t: &ThreadRow| pct(t.cpu_percent_max)),
        Column::right("CPU", |t: &ThreadRow| Cell::duration(t.cpu_ns())).only(Show::Console),
        Column::right("User", |t: &ThreadRow| Cell::duration(t.user_ns)),
        Column::right("System", |t: &ThreadRow| Cell::duration(t.system_ns)),
    ];
    if rows.iter().any(|t: &ThreadRow| t.alloc_bytes.is_some()) {
        c.push(Column::right("Alloc", |t: &ThreadRow| {
            Cell::opt(t.alloc_bytes, bytes)
        }));
        c.push(Column::right("Freed", |t: &ThreadRow| {
            Cell::opt(t.freed_bytes, bytes)
        }));
    }
    c
}
