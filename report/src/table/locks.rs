//! The exit report's `waits`, `mutexes`, `rw_locks` and `debug` sections.

use super::{heading, heading_then, table};
use crate::columns;

use crate::model::Report;

pub(super) fn waits(r: &Report, limit: usize, out: &mut String) {
    let rows = columns::waits_rows(r);
    let n = heading(
        out,
        limit,
        rows.len(),
        "waits: where each function's own time went, by time waiting",
    );
    table(columns::waits(r), &rows[..n], None).render(out);
    super::hidden_rows(rows.len() - n, "rows", out);
    super::wrapped(
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
            "; holds timed for each lock's first {} acquisitions, then 1 in {} (and every contended one); every one counted",
            crate::SAMPLING_WARM_UP,
            (1.0 / r).round()
        ),
        _ => String::new(),
    }
}

fn holders(r: &Report, limit: usize, out: &mut String, mutexes: bool) {
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
    let n = heading(out, limit, rows.len(), &what);
    table(columns::holders(r), &rows[..n], None).render(out);
    super::hidden_rows(rows.len() - n, "rows", out);
}

pub(super) fn mutexes(r: &Report, limit: usize, out: &mut String) {
    let rows = columns::mutex_rows(r);
    let n = heading_then(
        out,
        limit,
        rows.len(),
        "mutexes: acquisitions, waits and holds per lock, by total hold",
        &sampling(r.mutexes_time_sampling_rate),
    );
    table(columns::mutexes(r), &rows[..n], None).render(out);
    super::hidden_rows(rows.len() - n, "rows", out);
    holders(r, limit, out, true);
}

pub(super) fn rw_locks(r: &Report, limit: usize, out: &mut String) {
    let rows = columns::rw_lock_rows(r);
    let n = heading_then(
        out,
        limit,
        rows.len(),
        "rw_locks: acquisitions, waits and holds per lock and mode, by total hold",
        &sampling(r.rw_locks_time_sampling_rate),
    );
    table(columns::rw_locks(r), &rows[..n], None).render(out);
    super::hidden_rows(rows.len() - n, "rows", out);
    holders(r, limit, out, false);
}

pub(super) fn debug(r: &Report, limit: usize, out: &mut String) {
    let rows = r.debug.as_deref().unwrap_or(&[]);
    let n = heading(
        out,
        limit,
        rows.len(),
        "debug: last values of dbg!, val! and gauge!",
    );
    table(columns::debug(), &rows[..n], None).render(out);
    super::hidden_rows(rows.len() - n, "rows", out);
}
