//! The exit report's `icount` section.

use std::fmt::Write as _;

use super::common::listed_functions;
use crate::columns;
use crate::format::count;
use crate::model::Report;

pub(crate) fn icount(r: &Report, limit: usize, out: &mut String) {
    let Some(info) = &r.icount else {
        return;
    };
    if let Some(why) = &info.unavailable {
        let _ = writeln!(out, "icount: no instructions counted: {why}");
        return;
    }
    listed_functions(
        out,
        limit,
        "icount: instructions (Ir) per function under callgrind, by inclusive instructions",
        columns::icount(r),
        &columns::icount_rows(r),
        None,
        |(f, _)| f,
    );
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
