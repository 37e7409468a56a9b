//! `stacks`: the calling-context tree, merged over threads, as paths of display names
//! in depth-first order (siblings by inclusive time); present when stacks are on.

use hotpath_core::stacks::Stacks;

use super::ctx::Ctx;
use crate::report::{Report, StackPath};

/// The paths of the snapshot's tree; its note (threads that reached the node budget)
/// joins the report's notes.
pub(super) fn build(ctx: &Ctx<'_>, r: &mut Report, notes: &mut Vec<String>) -> bool {
    if !ctx.inputs.cfg.stacks {
        return false;
    }
    let Some(s) = ctx.snap.stacks.as_ref() else {
        r.stacks = Some(Vec::new());
        return true;
    };
    let cpu = cpu_of(ctx, s);
    let n = s.nodes.len();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, node) in s.nodes.iter().enumerate().skip(1) {
        children[node.parent].push(i);
    }
    // Inclusive CPU (the subtree's self CPU) and whether anything ran below: children
    // come after their parent, so one backward pass adds them up.
    let mut cpu_incl: Vec<u64> = cpu.clone().unwrap_or_else(|| vec![0; n]);
    let mut used: Vec<bool> = s
        .nodes
        .iter()
        .enumerate()
        .map(|(i, node)| node.calls > 0 || cpu.as_ref().is_some_and(|c| c[i] > 0))
        .collect();
    for i in (1..n).rev() {
        let p = s.nodes[i].parent;
        cpu_incl[p] += cpu_incl[i];
        used[p] |= used[i];
    }
    for c in &mut children {
        crate::report::format::sort_rows(c, &|&a, &b| {
            let key = |i: usize| (s.nodes[i].total_ns, s.nodes[i].self_ns);
            key(b).cmp(&key(a))
        });
    }
    let mut out = Vec::new();
    let mut path: Vec<String> = Vec::new();
    // Depth-first: (node, depth).
    let mut todo: Vec<(usize, usize)> = children[0].iter().rev().map(|&i| (i, 0)).collect();
    while let Some((i, depth)) = todo.pop() {
        if !used[i] {
            continue;
        }
        let node = &s.nodes[i];
        path.truncate(depth);
        path.push(match node.site {
            Some(site) => site.label().unwrap_or(site.name()).to_string(),
            None => "[truncated]".to_string(),
        });
        out.push(StackPath {
            path: path.clone(),
            calls: node.calls,
            total_ns: node.total_ns,
            self_ns: node.self_ns,
            cpu_ns: cpu.as_ref().map(|_| cpu_incl[i]),
            self_cpu_ns: cpu.as_ref().map(|c| c[i]),
        });
        todo.extend(children[i].iter().rev().map(|&c| (c, depth + 1)));
    }
    if s.overflowed_threads > 0 {
        notes.push(format!(
            "stacks: {} thread(s) ran more than {} distinct paths (HOTPATH_STACKS_NODES); \
             the paths past that are folded into [truncated]",
            s.overflowed_threads, s.budget
        ));
    }
    r.stacks = Some(out);
    true
}

/// Self CPU time per node, ns, when CPU time is measured.
#[cfg(feature = "hotpath-cpu")]
fn cpu_of(ctx: &Ctx<'_>, s: &Stacks) -> Option<Vec<u64>> {
    let run = ctx.inputs.cpu?;
    let exact = run.mode == crate::CpuMode::Exact;
    Some(
        s.nodes
            .iter()
            .map(|n| {
                if exact {
                    n.self_cpu_ns
                } else {
                    n.self_samples * run.period_ns
                }
            })
            .collect(),
    )
}

#[cfg(not(feature = "hotpath-cpu"))]
fn cpu_of(_: &Ctx<'_>, _: &Stacks) -> Option<Vec<u64>> {
    None
}
