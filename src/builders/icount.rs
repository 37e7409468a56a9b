//! `icount`: instructions per function under callgrind (feature `hotpath-callgrind`;
//! without it the section is never present). How they are counted: `src/callgrind`.

use hotpath_core::SiteStats;

use super::ctx::Ctx;
#[cfg(feature = "hotpath-callgrind")]
use crate::report::IcountInfo;
use crate::report::{FunctionIcount, Report};

/// One function's counts: a synchronous function callgrind saw return.
#[cfg(feature = "hotpath-callgrind")]
pub(super) fn function(ctx: &Ctx<'_>, s: &SiteStats) -> Option<FunctionIcount> {
    let counts = ctx.inputs.icount?.as_ref().ok()?;
    // A call still running has no end yet; the function that started the session
    // (`#[hotpath::main]`) has the session's start and end in its frame, threads started
    // and joined: its instructions are the program's and the profiler's (`total`).
    let running = ctx
        .snap
        .running
        .iter()
        .any(|r| std::ptr::eq(r.site, s.site));
    let caller = s.site.name() == ctx.inputs.cfg.caller;
    if s.site.kind() != hotpath_core::SiteKind::Function || running || caller {
        return None;
    }
    let c = counts.of(s.site.name())?;
    Some(FunctionIcount {
        calls: s.calls,
        inclusive: c.inclusive,
        self_: c.self_,
    })
}

#[cfg(not(feature = "hotpath-callgrind"))]
pub(super) fn function(_: &Ctx<'_>, _: &SiteStats) -> Option<FunctionIcount> {
    None
}

/// The section's header: what counted, or why nothing did. Always present when the
/// section is configured, so that an empty section says why.
#[cfg(feature = "hotpath-callgrind")]
pub(super) fn build(ctx: &Ctx<'_>, r: &mut Report) -> bool {
    r.icount = Some(match ctx.inputs.icount {
        None => IcountInfo {
            unavailable: Some(
                "instructions are read from callgrind at the end of the session".to_string(),
            ),
            ..IcountInfo::default()
        },
        Some(Err(why)) => IcountInfo {
            unavailable: Some(why.clone()),
            ..IcountInfo::default()
        },
        Some(Ok(c)) => IcountInfo {
            tool: c.tool.clone(),
            dump: Some(c.dump.display().to_string()),
            total: c.total,
            unavailable: None,
        },
    });
    true
}

#[cfg(not(feature = "hotpath-callgrind"))]
pub(super) fn build(_: &Ctx<'_>, _: &mut Report) -> bool {
    false
}
