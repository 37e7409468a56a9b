//! The exit report's `icount` section.

use std::fmt::Write as _;

use super::{heading, hidden_functions, table};
use crate::columns;
use crate::format::count;
use crate::model::{Function, Report};

pub(super) fn icount(r: &Report, limit: usize, out: &mut String) {
    let Some(info) = &r.icount else {
        return;
    };
    if let Some(why) = &info.unavailable {
        let _ = writeln!(out, "icount: no instructions counted: {why}");
        return;
    }
    let rows = columns::icount_rows(r);
    let n = heading(
        out,
        limit,
        rows.len(),
        "icount: instructions (Ir) per function under callgrind, by inclusive instructions",
    );
    table(columns::icount(r), &rows[..n], None).render(out);
    let rest: Vec<&Function> = rows[n..].iter().map(|(f, _)| *f).collect();
    hidden_functions(&rest, out);
    let _ = write!(
        out,
        "counted by {}",
        info.tool.as_deref().unwrap_or("callgrind")
    );
    if let Some(total) = info.total {
        let _ = write!(out, "; {} instructions in the session", count(total));
    }
    if let Some(dump) = &info.dump {
        let _ = write!(out, " (dump {dump})");
    }
    out.push('\n');
}
