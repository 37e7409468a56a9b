//! The functions of two reports: calls and wall times, and allocations, CPU time and
//! instruction counts when both reports have those sections.

use std::collections::HashMap;

use crate::format::{count, duration};
use crate::{Function, Report};

use super::{dist_sides, ints, numbered, sides, Compare, Matching, Unpaired};
use crate::diff::{Metric, RowKey, Unmatched, Value};

impl Compare {
    /// Compares the functions both reports have, and their waits; returns the rows only
    /// in HEAD and only in BASE.
    pub(crate) fn functions(&mut self, base: &Report, head: &Report) -> Unpaired {
        let (b, h) = (&base.functions, &head.functions);
        let m = Matching::new(b, h, |f: &Function| (f.name.clone(), f.label.clone()));
        let shown = shown_functions(&m.keys);
        for (bi, hi) in &m.pairs {
            let key = m.row_key_of_head(*hi, function_key);
            self.function(&key, &shown[&key], &b[*bi], &h[*hi]);
            self.waits(&key, &shown[&key], &b[*bi], &h[*hi]);
        }
        m.unmatched(b, h, |(id, nth), f| {
            unmatched_function(&shown, function_key(id.clone(), *nth), f)
        })
    }

    fn function(&mut self, key: &RowKey, shown: &str, b: &Function, h: &Function) {
        self.per_call_weight = b.calls.max(h.calls).max(1);
        let (percentiles, alloc, cpu, icount) =
            (self.percentiles.clone(), self.alloc, self.cpu, self.icount);
        let mut push = |metric, v| self.push(key.clone(), shown, metric, v);
        push(Metric::Calls, ints(b.calls, h.calls));
        let wall = (b.wall_ns.as_ref(), h.wall_ns.as_ref());
        push(Metric::Total, sides(wall, |w| Value::Int(w.total)));
        // A quantity equal to the total in both reports says nothing the total does not:
        // self time without measured children, and every per-call time of a function
        // called once on both sides.
        let no_children = |w: &crate::WallNs| w.self_ == w.total;
        if !(wall.0.is_some_and(no_children) && wall.1.is_some_and(no_children)) {
            push(Metric::SelfTime, sides(wall, |w| Value::Int(w.self_)));
        }
        let once = |f: &Function| f.calls <= 1;
        if !(once(b) && once(h) && wall.0.is_some() && wall.1.is_some()) {
            for (metric, v) in dist_sides(&percentiles, wall) {
                push(metric, v);
            }
        }
        if cpu {
            let cpu = (b.cpu.as_ref(), h.cpu.as_ref());
            push(Metric::Cpu, sides(cpu, |c| Value::Int(c.cpu_ns)));
        }
        if icount {
            // Exact: callgrind counts the same instructions in every run of the same
            // program, so any difference is a change of the code or its input.
            let icount = (b.icount.as_ref(), h.icount.as_ref());
            push(Metric::Icount, sides(icount, |c| Value::Int(c.inclusive)));
            push(Metric::IcountSelf, sides(icount, |c| Value::Int(c.self_)));
        }
        if alloc {
            let alloc = (b.alloc.as_ref(), h.alloc.as_ref());
            push(Metric::Allocs, sides(alloc, |a| Value::Int(a.count)));
            push(Metric::AllocBytes, sides(alloc, |a| Value::Int(a.bytes)));
            push(
                Metric::AllocsPerCall,
                sides(alloc, |a| Value::Real(a.per_call_count)),
            );
            push(
                Metric::BytesPerCall,
                sides(alloc, |a| Value::Int(a.per_call_bytes)),
            );
        }
    }
}

type FunctionKey = ((String, Option<String>), usize);

fn function_key((name, label): (String, Option<String>), nth: usize) -> RowKey {
    RowKey::Function { name, label, nth }
}

/// Display names of the functions: the label or name; `label (name)` when two rows share
/// it; ` #2`, ` #3` for later rows with the same name and label.
fn shown_functions(keys: &[FunctionKey]) -> HashMap<RowKey, String> {
    let display = |(name, label): &(String, Option<String>)| label.as_ref().unwrap_or(name).clone();
    let mut out = HashMap::new();
    for (id, nth) in keys {
        let mut s = display(id);
        let twins = keys
            .iter()
            .filter(|(o, _)| o != id && display(o) == s)
            .count();
        if twins > 0 {
            if id.1.is_some() {
                s = format!("{s} ({})", id.0);
            } else {
                s = format!("{s} (fn)");
            }
        }
        out.insert(function_key(id.clone(), *nth), numbered(s, *nth));
    }
    out
}

fn unmatched_function(shown: &HashMap<RowKey, String>, row: RowKey, f: &Function) -> Unmatched {
    let calls = if f.calls == 1 {
        "1 call".to_string()
    } else {
        format!("{} calls", count(f.calls))
    };
    let summary = match &f.wall_ns {
        Some(w) => format!("{calls}, {} total", duration(w.total)),
        None => format!("{calls}, not timed"),
    };
    Unmatched {
        shown: shown[&row].clone(),
        row,
        summary,
    }
}
