//! The exit report's `waits`, `mutexes`, `rw_locks` and `debug` sections.

use super::common::{listed, wrapped};
use crate::columns;

use crate::model::Report;

pub(crate) fn waits(r: &Report, limit: usize, out: &mut String) {
    let rows = columns::waits_rows(r);
    listed(
        out,
        limit,
        "waits: where each function's own time went, by time waiting",
        "",
        columns::waits(r),
        &rows,
    );
    wrapped(
        "each: time and share of the function's wall time; Children: in measured functions it \
         called or awaited; Other: neither CPU nor a wrapped wait",
        out,
    );
}

/// `; 10% of acquisitions timed, every one counted`, or nothing at rate 1.
fn sampling(rate: Option<f64>) -> String {
    match rate {
        Some(r) if r <= 0.0 => "; count only, no acquisition timed".to_string(),
        Some(r) if r < 1.0 => format!(
            "; holds timed for each lock's first {} acquisitions, then 1 in {} (and every contended one, and every one that made another wait); every one counted",
            crate::SAMPLING_WARM_UP,
            (1.0 / r).round()
        ),
        _ => String::new(),
    }
}

/// The lines under the table of the mutexes (`mutexes`) or rw-locks: the legend of the
/// values over a sample when a shown row has one (`sampled`), then the table of the
/// functions that acquired, waited and held.
fn under_locks(r: &Report, limit: usize, out: &mut String, mutexes: bool, sampled: bool) {
    if sampled {
        wrapped(columns::SAMPLED_LEGEND, out);
    }
    let rows: Vec<_> = columns::holder_rows(r)
        .into_iter()
        .filter(|(lock, _)| {
            let is_mutex = columns::mutex_rows(r).iter().any(|e| &e.name == lock);
            is_mutex == mutexes
        })
        .collect();
    if rows.is_empty() {
        return;
    }
    out.push('\n');
    let what = format!(
        "{} by function: who acquired, waited and held",
        if mutexes { "mutexes" } else { "rw_locks" }
    );
    listed(out, limit, &what, "", columns::holders(r), &rows);
}

pub(crate) fn mutexes(r: &Report, limit: usize, out: &mut String) {
    let rows = columns::mutex_rows(r);
    let n = listed(
        out,
        limit,
        "mutexes: acquisitions, waits and holds per lock, by total hold",
        &sampling(r.mutexes_time_sampling_rate),
        columns::mutexes(r),
        &rows,
    );
    let sampled = columns::any_sampled(rows[..n].iter().map(|e| &e.lock));
    under_locks(r, limit, out, true, sampled);
}

pub(crate) fn rw_locks(r: &Report, limit: usize, out: &mut String) {
    let rows = columns::rw_lock_rows(r);
    let n = listed(
        out,
        limit,
        "rw_locks: acquisitions, waits and holds per lock and mode, by total hold",
        &sampling(r.rw_locks_time_sampling_rate),
        columns::rw_locks(r),
        &rows,
    );
    let sampled = columns::any_sampled(rows[..n].iter().map(|(_, _, m)| *m));
    under_locks(r, limit, out, false, sampled);
}

pub(crate) fn debug(r: &Report, limit: usize, out: &mut String) {
    listed(
        out,
        limit,
        "debug: last values of dbg!, val! and gauge!",
        "",
        columns::debug(),
        r.debug.as_deref().unwrap_or(&[]),
    );
}
