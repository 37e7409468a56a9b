//! Columns of the `stacks` table.

use super::common::{Cell, Column, Columns};
use crate::format::{duration, percent};
use crate::model::{Report, StackPath};

/// A path of the calling-context tree and its place in the tree's depth-first order: a
/// row of the `stacks` table.
pub type StackRow<'a> = (&'a StackPath, usize);

/// The `stacks` rows of `r`, in the report's (depth-first) order.
pub fn stack_rows(r: &Report) -> Vec<StackRow<'_>> {
    r.stacks
        .as_deref()
        .unwrap_or(&[])
        .iter()
        .enumerate()
        .map(|(i, p)| (p, i))
        .collect()
}

/// A path as the tree shows it: its last function, indented by its depth.
pub fn stack_name(p: &StackPath) -> String {
    format!(
        "{}{}",
        "  ".repeat(p.path.len().saturating_sub(1)),
        p.leaf()
    )
}

/// `stacks`: calls and time per path. The path column sorts by the tree's order.
pub fn stacks(r: &Report) -> Columns<'_, StackRow<'_>> {
    let elapsed = r.elapsed_ns as f64;
    let mut c: Columns<'_, StackRow<'_>> = vec![
        Column::left("Path", |(p, rank): &StackRow<'_>| {
            Cell::text(stack_name(p), format!("{rank:010}"))
        }),
        Column::right("Calls", |(p, _): &StackRow<'_>| Cell::count(p.calls)),
        Column::right("Total", |(p, _): &StackRow<'_>| Cell::duration(p.total_ns)),
        Column::right("Self", |(p, _): &StackRow<'_>| Cell::duration(p.self_ns)),
    ];
    if r.stacks.iter().flatten().any(|p| p.cpu_ns.is_some()) {
        c.push(Column::right("CPU", |(p, _): &StackRow<'_>| {
            Cell::opt(p.cpu_ns, duration)
        }));
        c.push(Column::right("Self CPU", |(p, _): &StackRow<'_>| {
            Cell::opt(p.self_cpu_ns, duration)
        }));
    }
    c.push(Column::right("% Total", move |(p, _): &StackRow<'_>| {
        Cell::num(percent(p.total_ns as f64, elapsed), p.total_ns as f64)
    }));
    c
}
