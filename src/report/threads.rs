//! The `threads` section: CPU time and state of every thread seen during the session,
//! and the process's memory.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::format::{bytes, duration, Table};
use super::table::{shown, take};

/// One thread seen during the session (section `threads`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ThreadRow {
    /// The thread's name as the OS knows it (at most 15 bytes on Linux).
    pub name: String,
    /// OS thread id.
    pub tid: u64,
    /// `running`, `sleeping`, `disk-wait`, `stopped`, `zombie`, `dead`, `idle`, or
    /// `exited` for a thread that ended during the session.
    pub state: String,
    /// CPU time over the thread's observed lifetime in the session as a share of one
    /// core: 100 = one core busy the whole time.
    pub cpu_percent_avg: f64,
    /// Highest CPU share of one core over any one sampling interval.
    pub cpu_percent_max: f64,
    /// CPU time in user mode during the session, ns.
    pub user_ns: u64,
    /// CPU time in the kernel during the session, ns.
    pub system_ns: u64,
    /// Bytes allocated by this thread (feature `hotpath-alloc`), else `null`.
    pub alloc_bytes: Option<u64>,
    /// Bytes freed by this thread (feature `hotpath-alloc`), else `null`.
    pub freed_bytes: Option<u64>,
    /// One of the profiler's own threads.
    pub profiler: bool,
}

/// Memory of the whole process at the end of the session.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProcessMemory {
    /// Resident set size, bytes.
    pub rss_bytes: u64,
    /// Highest resident set size since the process started, bytes.
    pub peak_rss_bytes: u64,
}

impl ThreadRow {
    /// User plus system CPU time, ns.
    fn cpu_ns(&self) -> u64 {
        self.user_ns.saturating_add(self.system_ns)
    }
}

/// `12.3%`.
fn cpu(p: f64) -> String {
    format!("{p:.1}%")
}

/// Appends the threads section, from its title line on (the caller separates it from
/// the section before). `limit` caps the rows of the table (0 = all); the profiler's
/// own threads are listed on one line after it.
pub(crate) fn render(
    rows: &[ThreadRow],
    memory: Option<&ProcessMemory>,
    limit: usize,
    out: &mut String,
) {
    let mut user: Vec<&ThreadRow> = rows.iter().filter(|t| !t.profiler).collect();
    let mut own: Vec<&ThreadRow> = rows.iter().filter(|t| t.profiler).collect();
    let order = |a: &&ThreadRow, b: &&ThreadRow| {
        b.cpu_ns()
            .cmp(&a.cpu_ns())
            .then(a.tid.cmp(&b.tid))
            .then(a.name.cmp(&b.name))
    };
    user.sort_by(order);
    own.sort_by(order);
    let n = take(limit, user.len());
    let _ = writeln!(
        out,
        "threads: per thread, by CPU time {}",
        shown(n, user.len())
    );
    let with_alloc = rows.iter().any(|t| t.alloc_bytes.is_some());
    let mut header: Vec<String> = [
        "Thread", "TID", "State", "CPU avg", "CPU max", "User", "System",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    if with_alloc {
        header.extend(["Alloc".into(), "Freed".into()]);
    }
    let mut t = Table::new(header);
    for r in &user[..n] {
        let mut row = vec![
            r.name.clone(),
            r.tid.to_string(),
            r.state.clone(),
            cpu(r.cpu_percent_avg),
            cpu(r.cpu_percent_max),
            duration(r.user_ns),
            duration(r.system_ns),
        ];
        if with_alloc {
            let b = |v: Option<u64>| v.map(bytes).unwrap_or_else(|| "-".into());
            row.push(b(r.alloc_bytes));
            row.push(b(r.freed_bytes));
        }
        t.row(row);
    }
    t.render(out);
    if !own.is_empty() {
        // Threads of one name on one entry: `name ×6 (0.1% avg)`, the
        // average over them.
        let mut groups: Vec<(&str, usize, f64)> = Vec::new();
        for r in &own {
            match groups.iter_mut().find(|g| g.0 == r.name) {
                Some(g) => {
                    g.1 += 1;
                    g.2 += r.cpu_percent_avg;
                }
                None => groups.push((&r.name, 1, r.cpu_percent_avg)),
            }
        }
        let list: Vec<String> = groups
            .iter()
            .map(|(name, n, sum)| match n {
                1 => format!("{name} ({} avg)", cpu(*sum)),
                n => format!("{name} ×{n} ({} avg)", cpu(sum / *n as f64)),
            })
            .collect();
        let _ = writeln!(out, "profiler threads: {}", list.join(", "));
    }
    if let Some(m) = memory {
        let _ = writeln!(
            out,
            "process memory: rss {}, peak {}",
            bytes(m.rss_bytes),
            bytes(m.peak_rss_bytes)
        );
    }
}
