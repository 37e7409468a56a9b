//! `sql`, `http`, `server`: the interned sites of the SQL and HTTP front ends
//! (`crate::service`), one row per site.

use std::collections::HashMap;
use std::sync::atomic::Ordering;

use hotpath_core::{Distribution, SiteKind, SiteStats};

use super::ctx::Ctx;
use crate::report::{Dist, Histogram, HttpEntry, Report, ServerEntry, SqlEntry, StatusClasses};

/// A distribution of `d` (ns) with `total` as its sum.
fn dist(ctx: &Ctx<'_>, d: &Distribution, total: u64) -> Dist {
    let n = d.count().max(1);
    let (min, max) = d.range();
    Dist {
        total,
        mean: total / n,
        min,
        max,
        percentiles: ctx.percentiles(|p| d.percentile(p)),
        hist: Some(Histogram {
            sum: total,
            buckets: d.buckets(),
        }),
    }
}

/// The sites of `kind`, by total time, with the function sites by id (for sources).
fn sites<'a>(
    ctx: &'a Ctx<'_>,
    kind: SiteKind,
) -> (Vec<&'a SiteStats>, HashMap<u32, &'a SiteStats>) {
    let mut rows: Vec<&SiteStats> = ctx
        .snap
        .sites
        .iter()
        .filter(|s| s.site.kind() == kind && s.calls > 0)
        .collect();
    crate::report::format::sort_vec(&mut rows, &|a, b| b.sum_ns.cmp(&a.sum_ns));
    let functions = ctx
        .snap
        .sites
        .iter()
        .filter(|s| s.site.kind().is_function())
        .map(|s| (s.site.id(), s))
        .collect();
    (rows, functions)
}

fn source_name(site: &'static hotpath_core::CallSite) -> String {
    site.label().unwrap_or_else(|| site.name()).to_string()
}

/// The `sql` rows; absent without one, with a note when the sqlx layer heard nothing.
pub(super) fn build_sql(ctx: &Ctx<'_>, r: &mut Report, notes: &mut Vec<String>) -> bool {
    let (rows, functions) = sites(ctx, SiteKind::Sql);
    let wall = ctx.inputs.elapsed_ns.max(1);
    let entries: Vec<SqlEntry> = rows
        .iter()
        .map(|s| {
            let info = crate::service::info(s.site);
            let backend = info.as_ref().map_or("sqlx", |i| i.backend);
            let source = info.as_ref().and_then(|i| i.source);
            let per_source_call = source.and_then(|src| {
                let f = functions.get(&src.id())?;
                (f.calls > 0).then(|| ((s.calls as f64 / f.calls as f64) * 100.0).round() / 100.0)
            });
            SqlEntry {
                query: s.site.name().to_string(),
                source: source.map(source_name),
                backend: backend.to_string(),
                calls: s.calls,
                errors: (backend != "sqlx").then_some(s.errors),
                rows_returned: (backend != "diesel").then_some(s.rows_returned),
                rows_affected: (backend != "diesel").then_some(s.rows_affected),
                per_source_call,
                duration_ns: dist(ctx, &s.time, s.sum_ns),
                share_of_wall: ((s.sum_ns as f64 / wall as f64) * 1e4).round() / 1e4,
            }
        })
        .collect();
    if entries.is_empty() {
        if crate::service::SQLX_LAYER.load(Ordering::Relaxed)
            && crate::service::SQL_EVENTS.load(Ordering::Relaxed) == 0
        {
            notes.push(
                "sql: the sqlx layer is installed but no sqlx::query event arrived: allow \
                 sqlx::query=debug in the global filter and do not set log_statements(Off)"
                    .to_string(),
            );
        }
        return false;
    }
    r.sql = Some(entries);
    true
}

/// The rows of the sites of `kind`, by total time, put in `field`; `false` (nothing put)
/// when there is none.
fn fill<R>(
    ctx: &Ctx<'_>,
    kind: SiteKind,
    field: &mut Option<Vec<R>>,
    row: impl Fn(&SiteStats) -> R,
) -> bool {
    let (rows, _) = sites(ctx, kind);
    if rows.is_empty() {
        return false;
    }
    *field = Some(rows.into_iter().map(row).collect());
    true
}

/// The `http` rows (client endpoints).
pub(super) fn build_http(ctx: &Ctx<'_>, r: &mut Report) -> bool {
    fill(ctx, SiteKind::HttpClient, &mut r.http, |s| {
        let info = crate::service::info(s.site);
        HttpEntry {
            endpoint: s.site.name().to_string(),
            label: s.site.label().map(str::to_string),
            source: info.as_ref().and_then(|i| i.source).map(source_name),
            client: info.as_ref().map_or("reqwest", |i| i.backend).to_string(),
            calls: s.calls,
            errors: s.errors,
            status: StatusClasses::from_array(s.status),
            ttfb_ns: dist(ctx, &s.time, s.sum_ns),
            bodies: s.flow.busy.count(),
            body_ns: (s.flow.busy.count() > 0).then(|| dist(ctx, &s.flow.busy, s.busy_ns)),
        }
    })
}

/// The `server` rows (routes).
pub(super) fn build_server(ctx: &Ctx<'_>, r: &mut Report) -> bool {
    fill(ctx, SiteKind::HttpServer, &mut r.server, |s| ServerEntry {
        route: s.site.name().to_string(),
        calls: s.calls,
        status: StatusClasses::from_array(s.status),
        aborted: s.aborted,
        in_flight: s.started.saturating_sub(s.calls),
        ttfb_ns: dist(ctx, &s.wait, s.wait_ns),
        total_ns: dist(ctx, &s.time, s.sum_ns),
    })
}
