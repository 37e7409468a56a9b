//! `/metrics` families of the `mutexes`, `rw_locks`, `waits` and `debug` sections.

use prometheus::proto::MetricType;

use super::family::{unique, Family};
use hotpath_report::format::Twin;
use hotpath_report::{LockMode, Report};

/// Lock families: acquisitions, contended acquisitions, failed tries (counters) and the
/// wait and hold histograms, per lock and mode. Mutexes have the mode `exclusive`.
pub(super) fn locks(r: &Report, limit: usize, bounds: &[f64], out: &mut Vec<Family>) {
    let mut acquisitions = Family::new(
        "hotpath_lock_acquisitions_total",
        "Acquisitions of each mutex! / rw_lock! site, by mode (mutexes: exclusive).",
        MetricType::COUNTER,
    );
    let mut contended = Family::new(
        "hotpath_lock_contended_total",
        "Acquisitions that found the lock taken and waited.",
        MetricType::COUNTER,
    );
    let mut try_failed = Family::new(
        "hotpath_lock_try_failed_total",
        "try_lock-style attempts that failed because the lock was taken.",
        MetricType::COUNTER,
    );
    let mut wait = Family::new(
        "hotpath_lock_wait_seconds",
        "Wait before one timed acquisition (0 when it did not wait).",
        MetricType::HISTOGRAM,
    );
    let mut hold = Family::new(
        "hotpath_lock_hold_seconds",
        "How long one timed acquisition held the lock.",
        MetricType::HISTOGRAM,
    );
    let mutexes = r.mutexes.as_deref().unwrap_or(&[]);
    let rw_locks = r.rw_locks.as_deref().unwrap_or(&[]);
    // Names unique over both kinds and every site, exported or not.
    let twins: Vec<Twin<'_>> = mutexes
        .iter()
        .map(|e| (&e.name, &e.type_name, &e.file, e.line))
        .chain(
            rw_locks
                .iter()
                .map(|e| (&e.name, &e.type_name, &e.file, e.line)),
        )
        .map(|(name, type_name, file, line)| Twin {
            name,
            type_name,
            file,
            line,
        })
        .collect();
    let names = unique(twins);
    let (mnames, rnames) = names.split_at(mutexes.len());
    let mut rows: Vec<(&str, &'static str, &LockMode)> = Vec::new();
    for (e, name) in mutexes.iter().zip(mnames).take(limit) {
        rows.push((name, "exclusive", &e.lock));
    }
    for (e, name) in rw_locks.iter().zip(rnames).take(limit) {
        for (mode, m) in e.modes() {
            rows.push((name, mode, m));
        }
    }
    for (name, mode, m) in rows {
        if m.acquisitions + m.try_failed == 0 {
            continue;
        }
        let l = [("lock", name), ("mode", mode)];
        acquisitions.counter(&l, m.acquisitions as f64);
        contended.counter(&l, m.contended as f64);
        try_failed.counter(&l, m.try_failed as f64);
        wait.durations(&l, m.wait_ns.as_ref(), bounds);
        hold.durations(&l, m.hold_ns.as_ref(), bounds);
    }
    for f in [acquisitions, contended, try_failed, wait, hold] {
        f.finish(out);
    }
}

/// `hotpath_function_wait_seconds_total{function, kind}`: the waits charged to each
/// function, unscaled for sampled functions (counters never decrease).
pub(super) fn waits(r: &Report, limit: usize, names: &[String], out: &mut Vec<Family>) {
    let mut waited = Family::new(
        "hotpath_function_wait_seconds_total",
        "Time the function waited, as the innermost measured function, on what the wrappers \
         time: kind is io, lock, channel_send, channel_recv, sql or http.",
        MetricType::COUNTER,
    );
    for (f, name) in r.functions.iter().zip(names).take(limit) {
        let Some(w) = &f.waits else { continue };
        let unscale = |v: u64| {
            if f.sampled && f.calls > 0 {
                (v as f64 * f.timed_calls as f64 / f.calls as f64).round()
            } else {
                v as f64
            }
        };
        for (kind, ns) in [
            ("io", w.io_ns),
            ("lock", w.lock_ns),
            ("channel_send", w.channel_send_ns),
            ("channel_recv", w.channel_recv_ns),
            ("sql", w.sql_ns),
            ("http", w.http_ns),
        ] {
            if ns > 0 {
                waited.counter(&[("function", name), ("kind", kind)], unscale(ns) / 1e9);
            }
        }
    }
    waited.finish(out);
}

/// `hotpath_debug_gauge{key}` and `hotpath_debug_updates_total{kind, key}`.
pub(super) fn debug(r: &Report, limit: usize, out: &mut Vec<Family>) {
    let mut gauge = Family::new(
        "hotpath_debug_gauge",
        "The value of each gauge! key.",
        MetricType::GAUGE,
    );
    let mut updates = Family::new(
        "hotpath_debug_updates_total",
        "Updates of each dbg! site, val! key and gauge! key.",
        MetricType::COUNTER,
    );
    for d in r.debug.as_deref().unwrap_or(&[]).iter().take(limit) {
        updates.counter(
            &[("kind", d.kind.as_str()), ("key", d.key.as_str())],
            d.updates as f64,
        );
        if let Some(g) = d.gauge {
            gauge.gauge(&[("key", d.key.as_str())], g);
        }
    }
    for f in [gauge, updates] {
        f.finish(out);
    }
}
