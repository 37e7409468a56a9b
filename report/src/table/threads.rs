//! The exit report's `threads` section.

use std::fmt::Write as _;

use super::common::{heading, hidden_rows, table};
use crate::columns;
use crate::format::bytes;
use crate::model::{Report, ThreadRow};

/// The threads section: the user's threads in a table, the profiler's own on one line
/// after it, and the process's memory.
pub(crate) fn threads(r: &Report, limit: usize, out: &mut String) {
    let rows = r.threads.as_deref().unwrap_or(&[]);
    let order = |a: &&ThreadRow, b: &&ThreadRow| {
        b.cpu_ns()
            .cmp(&a.cpu_ns())
            .then(a.tid.cmp(&b.tid))
            .then(a.name.cmp(&b.name))
    };
    let mut user: Vec<_> = rows.iter().filter(|t| !t.profiler).collect();
    let mut own: Vec<_> = rows.iter().filter(|t| t.profiler).collect();
    crate::format::sort_rows(&mut user, &order);
    crate::format::sort_rows(&mut own, &order);
    let n = heading(out, limit, user.len(), "threads: per thread, by CPU time");
    let shown_rows: Vec<_> = user[..n].iter().map(|t| (*t).clone()).collect();
    table(columns::threads(rows), &shown_rows, None).render(out);
    hidden_rows(user.len() - n, "threads", out);
    if !own.is_empty() {
        // Threads of one name on one entry: `name ×6 (0.1% avg)`, the average over them.
        let mut groups: Vec<(&str, usize, f64)> = Vec::new();
        for t in &own {
            match groups.iter_mut().find(|g| g.0 == t.name) {
                Some(g) => {
                    g.1 += 1;
                    g.2 += t.cpu_percent_avg;
                }
                None => groups.push((&t.name, 1, t.cpu_percent_avg)),
            }
        }
        let list: Vec<String> = groups
            .iter()
            .map(|(name, n, sum)| match n {
                1 => format!("{name} ({sum:.1}% avg)"),
                n => format!("{name} ×{n} ({:.1}% avg)", sum / *n as f64),
            })
            .collect();
        let _ = writeln!(out, "profiler threads: {}", list.join(", "));
    }
    if let Some(m) = &r.process_memory {
        let _ = writeln!(
            out,
            "process memory: {} resident at the end, {} at the peak (rss)",
            bytes(m.rss_bytes),
            bytes(m.peak_rss_bytes)
        );
    }
}
