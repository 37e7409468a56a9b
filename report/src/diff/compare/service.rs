//! The `sql`, `http` and `server` rows of two reports: calls, errors and times per
//! query, endpoint and route (and per endpoint's bodies, with client body timing).

use crate::format::{count, duration};
use crate::{Dist, Report};

use super::{dist_sides, ints, shown_with, Compare, Unpaired};
use crate::diff::{Metric, RowKey};

/// One row as compared: `(section, key, source)` and its numbers.
type Id = (&'static str, String, Option<String>);

struct Row<'a> {
    calls: u64,
    errors: Option<u64>,
    time: &'a Dist,
}

fn rows(r: &Report) -> Vec<(Id, Row<'_>)> {
    let mut v = Vec::new();
    for e in r.sql.iter().flatten() {
        v.push((
            ("sql", e.query.clone(), e.source.clone()),
            Row {
                calls: e.calls,
                errors: e.errors,
                time: &e.duration_ns,
            },
        ));
    }
    for e in r.http.iter().flatten() {
        v.push((
            ("http", e.endpoint.clone(), e.source.clone()),
            Row {
                calls: e.calls,
                errors: Some(e.errors),
                time: &e.ttfb_ns,
            },
        ));
        // With body timing: the time to the end of the bodies, a row of its own.
        if let Some(body) = &e.body_ns {
            v.push((
                ("http body", e.endpoint.clone(), e.source.clone()),
                Row {
                    calls: e.bodies,
                    errors: None,
                    time: body,
                },
            ));
        }
    }
    for e in r.server.iter().flatten() {
        v.push((
            ("server", e.route.clone(), None),
            Row {
                calls: e.calls,
                errors: Some(e.status.status_5xx + e.aborted),
                time: &e.total_ns,
            },
        ));
    }
    v
}

fn key((section, key, source): Id, nth: usize) -> RowKey {
    RowKey::Service {
        section: section.to_string(),
        key,
        source,
        nth,
    }
}

/// `sql: SELECT ... (app::load)`, ` #2` for a later row of the same identity.
fn shown((section, key, source): &Id, nth: usize) -> String {
    shown_with(section, key, source.as_deref(), nth)
}

impl Compare {
    /// Compares the SQL, HTTP and server rows both reports have; returns the rows only
    /// in HEAD and only in BASE.
    pub(crate) fn service(&mut self, base: &Report, head: &Report) -> Unpaired {
        let (b, h) = (rows(base), rows(head));
        let pair = |c: &mut Self, row: &RowKey, shown: &str, br: &Row, hr: &Row| {
            c.per_call_weight = br.calls.max(hr.calls).max(1);
            let percentiles = c.percentiles.clone();
            let mut push = |metric, v| c.push(row.clone(), shown, metric, v);
            push(Metric::Calls, ints(br.calls, hr.calls));
            if let (Some(be), Some(he)) = (br.errors, hr.errors) {
                push(Metric::Errors, ints(be, he));
            }
            push(Metric::Total, ints(br.time.total, hr.time.total));
            for (metric, v) in dist_sides(&percentiles, (Some(br.time), Some(hr.time))) {
                push(metric, v);
            }
        };
        self.keyed_rows(&b, &h, key, shown, pair, |r| {
            format!("{} calls, {} total", count(r.calls), duration(r.time.total))
        })
    }
}
