//! The calling-context tree of a report (section `stacks`) in other tools' formats:
//! folded stacks (flame graphs: inferno, `flamegraph.pl`, speedscope) and a Chrome trace
//! of the tree as a flame chart (Perfetto, `chrome://tracing`).
//!
//! The flame-graph SVG and pprof are made from these by the `hotpath` CLI (`hotpath
//! export`), which holds the libraries for them: a profiled program does not link them.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::model::{Report, StackPath};

/// What a path's value counts in an export.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Weight {
    /// Wall time spent on exactly this path, ns (self time): a flame graph of it shows
    /// each path's inclusive wall time.
    #[default]
    Wall,
    /// CPU time on exactly this path, ns (needs section `cpu`).
    Cpu,
    /// Calls on this path.
    Calls,
}

impl Weight {
    /// Accepted spellings, for messages.
    pub const ACCEPTED: &'static str = "wall (or self), cpu, calls";

    /// Parses `wall` (or `self`), `cpu` or `calls`.
    pub fn parse(s: &str) -> Option<Weight> {
        match s.trim().to_ascii_lowercase().as_str() {
            "wall" | "self" => Some(Weight::Wall),
            "cpu" => Some(Weight::Cpu),
            "calls" => Some(Weight::Calls),
            _ => None,
        }
    }

    /// The unit of the values: `nanoseconds` or `count`.
    pub fn unit(self) -> &'static str {
        match self {
            Weight::Wall | Weight::Cpu => "nanoseconds",
            Weight::Calls => "count",
        }
    }

    /// A path's own value (what ran on exactly this path).
    pub fn of(self, p: &StackPath) -> u64 {
        match self {
            Weight::Wall => p.self_ns,
            Weight::Cpu => p.self_cpu_ns.unwrap_or(0),
            Weight::Calls => p.calls,
        }
    }
}

/// Why a report cannot be exported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExportError {
    /// The report has no `stacks` section: run the program with `HOTPATH_STACKS=1`.
    NoStacks,
    /// CPU weight asked of a report without CPU time per path: build with `hotpath-cpu`
    /// (and leave `HOTPATH_CPU_MODE` on).
    NoCpu,
    /// The flame-graph renderer refused the folded stacks (its message).
    Render(String),
}

impl std::fmt::Display for ExportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExportError::NoStacks => f.write_str(
                "the report has no stacks section: run the program with HOTPATH_STACKS=1 \
                 (and HOTPATH_OUTPUT_FORMAT=json)",
            ),
            ExportError::NoCpu => f.write_str(
                "the report has no CPU time per path: build the program with the feature \
                 hotpath-cpu and leave HOTPATH_CPU_MODE on, or export another weight",
            ),
            ExportError::Render(why) => write!(f, "the flame graph could not be drawn: {why}"),
        }
    }
}

impl std::error::Error for ExportError {}

/// The report's paths, checked for `weight`.
pub fn paths(r: &Report, weight: Weight) -> Result<&[StackPath], ExportError> {
    let paths = r.stacks.as_deref().ok_or(ExportError::NoStacks)?;
    if weight == Weight::Cpu && !paths.iter().any(|p| p.self_cpu_ns.is_some()) {
        return Err(ExportError::NoCpu);
    }
    Ok(paths)
}

/// A frame name as folded stacks can hold it: `;` separates frames and a line ends at
/// its last space before the value, so `;` becomes `:` and line breaks become spaces.
pub fn frame_name(name: &str) -> String {
    let name = name.replace(';', ":").replace(['\n', '\r'], " ");
    // A blank name (a label may be any text) would make an empty frame of the line.
    if name.trim().is_empty() {
        return BLANK.to_string();
    }
    name
}

/// The frame of a function whose name or label is blank (`""`, `" "`).
pub const BLANK: &str = "[blank]";

/// Folded stacks: one line per path with a non-zero value, `main;parse;read 1200`.
/// Values are the paths' own (self) values, as flame-graph tools expect: they add up
/// the children themselves.
pub fn folded(r: &Report, weight: Weight) -> Result<String, ExportError> {
    let mut out = String::new();
    for p in paths(r, weight)? {
        let v = weight.of(p);
        if v == 0 {
            continue;
        }
        let names: Vec<String> = p.path.iter().map(|n| frame_name(n)).collect();
        let _ = writeln!(out, "{} {v}", names.join(";"));
    }
    Ok(out)
}

/// The parent of each path (its index in `paths`), from the path prefixes; `None` for
/// the outermost functions (and for a path whose parent is missing).
pub fn parents(paths: &[StackPath]) -> Vec<Option<usize>> {
    let index: HashMap<&[String], usize> = paths
        .iter()
        .enumerate()
        .map(|(i, p)| (p.path.as_slice(), i))
        .collect();
    paths
        .iter()
        .map(|p| match p.path.split_last() {
            Some((_, prefix)) if !prefix.is_empty() => index.get(prefix).copied(),
            _ => None,
        })
        .collect()
}

/// The tree as a Chrome trace (Trace Event Format, JSON): a flame chart of inclusive
/// wall time, each path a complete event (`ph: "X"`) inside its parent, children laid
/// out from their parent's start by decreasing time. Not a timeline: calls that
/// overlapped (threads, concurrent async calls) are drawn one after another, scaled into
/// their parent when they add up to more than it. For the calls as they happened use
/// `HOTPATH_TRACE`.
pub fn chrome_tree(r: &Report) -> Result<String, ExportError> {
    let paths = paths(r, Weight::Wall)?;
    let parents = parents(paths);
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); paths.len()];
    let mut roots = Vec::new();
    for (i, p) in parents.iter().enumerate() {
        match p {
            Some(p) => children[*p].push(i),
            None => roots.push(i),
        }
    }
    let by_total = |v: &mut Vec<usize>| {
        crate::format::sort_rows(v, &|&a, &b| paths[b].total_ns.cmp(&paths[a].total_ns))
    };
    by_total(&mut roots);
    for c in &mut children {
        by_total(c);
    }
    // (index, start ns, duration ns), parents first.
    let mut placed: Vec<(usize, f64, f64)> = Vec::new();
    let mut t = 0.0;
    let mut todo: Vec<(usize, f64, f64)> = Vec::new();
    for &i in &roots {
        let d = paths[i].total_ns as f64;
        todo.push((i, t, d));
        t += d;
    }
    while let Some((i, start, dur)) = todo.pop() {
        placed.push((i, start, dur));
        let kids = &children[i];
        let sum: f64 = kids.iter().map(|&k| paths[k].total_ns as f64).sum();
        let scale = if sum > dur && sum > 0.0 {
            dur / sum
        } else {
            1.0
        };
        let mut at = start;
        for &k in kids {
            let d = paths[k].total_ns as f64 * scale;
            todo.push((k, at, d));
            at += d;
        }
    }
    let mut events = vec![
        serde_json::json!({"name": "process_name", "ph": "M", "pid": 1, "tid": 1,
            "args": {"name": format!("{} (calling-context tree)", r.caller)}}),
        serde_json::json!({"name": "thread_name", "ph": "M", "pid": 1, "tid": 1,
            "args": {"name": "all threads, merged"}}),
    ];
    crate::format::sort_rows(&mut placed, &|a, b| {
        a.1.total_cmp(&b.1).then(b.2.total_cmp(&a.2))
    });
    for (i, start, dur) in placed {
        let p = &paths[i];
        events.push(serde_json::json!({
            "name": p.leaf(), "cat": "stacks", "ph": "X", "pid": 1, "tid": 1,
            "ts": micros(start), "dur": micros(dur),
            "args": {"path": p.path.join(";"), "calls": p.calls, "total_ns": p.total_ns,
                     "self_ns": p.self_ns},
        }));
    }
    let doc = serde_json::json!({
        "traceEvents": events,
        "displayTimeUnit": "ns",
        "otherData": {"hotpath_version": env!("CARGO_PKG_VERSION"),
                      "kind": "calling-context tree (flame chart), not a timeline"},
    });
    Ok(doc.to_string())
}

/// Nanoseconds as microseconds with three decimals (the Trace Event Format's unit).
pub fn micros(ns: f64) -> f64 {
    ns.round() / 1000.0
}
