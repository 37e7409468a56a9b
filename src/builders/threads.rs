//! `threads`: every thread seen during the session and the process's memory, from the
//! threads monitor (Linux); absent when the monitor does not run.

use super::ctx::Ctx;
use crate::report::Report;

/// The monitor's rows and the process's memory; its note (threads it could not read)
/// joins the report's notes.
pub(super) fn build(ctx: &Ctx<'_>, r: &mut Report, notes: &mut Vec<String>) -> bool {
    let Some(monitor) = ctx.inputs.threads else {
        return false;
    };
    let t = monitor.snapshot();
    notes.extend(t.note);
    r.threads = Some(t.rows);
    r.process_memory = t.memory;
    true
}
