//! The sqlx front end: a `tracing` layer that reads sqlx's `sqlx::query` events.
//!
//! sqlx logs every statement when it finishes (its `QueryLogger` drop) at DEBUG, with
//! `summary`, `db.statement`, `rows_returned`, `rows_affected` and `elapsed_secs`. The
//! issuing function is the innermost measured function on the thread that logs, when
//! there is one (PostgreSQL: the caller's thread). SQLite runs statements on a driver
//! thread, which enters the tracing span that was current on the caller when the
//! command was sent: so while the layer exists, every poll of a measured `async fn`
//! enters a span of that function (target `sqlx::query`, name `hotpath`, DEBUG), and the
//! layer finds the function from the span on the driver thread.

use hotpath_core::fork;
use std::collections::HashMap;

use hotpath_core::hook::PollHook;
use hotpath_core::CallSite;
use tracing_core::field::{Field, Visit};
use tracing_core::span::Id;
use tracing_core::{Event, Subscriber};
use tracing_subscriber::layer::Context;
use tracing_subscriber::registry::LookupSpan;

/// The span entered around the polls of each measured `async fn`, by site; and which
/// function each span id stands for.
struct Spans {
    by_site: HashMap<usize, tracing::Span>,
    by_id: HashMap<u64, &'static CallSite>,
}

static SPANS: fork::RwLock<Option<Spans>> = fork::RwLock::new(fork::Rank::SqlxSpans, None);

/// Enters `site`'s span around a poll: the profiler's work, allocations included (the
/// span made at the site's first poll; the subscriber's stack of entered spans, which
/// tracing-subscriber's registry allocates at a thread's first enter and grows), so none
/// of it is charged to the measured function that polls.
fn enter(site: &'static CallSite) -> u64 {
    hotpath_core::internal(|| enter_span(site))
}

fn enter_span(site: &'static CallSite) -> u64 {
    let key = site as *const _ as usize;
    let found = SPANS
        .read()
        .as_ref()
        .and_then(|s| s.by_site.get(&key).cloned());
    let span = match found {
        Some(s) => s,
        None => {
            let span = tracing::span!(
                target: "sqlx::query",
                tracing::Level::DEBUG,
                "hotpath",
                function = site.label().unwrap_or_else(|| site.name())
            );
            // A span the subscriber disabled (or made before one was set) is not kept:
            // the next poll tries again.
            if let Some(id) = span.id() {
                let mut g = SPANS.write();
                let spans = g.get_or_insert_with(|| Spans {
                    by_site: HashMap::new(),
                    by_id: HashMap::new(),
                });
                spans.by_id.insert(id.into_u64(), site);
                spans.by_site.insert(key, span.clone());
            }
            span
        }
    };
    match span.id() {
        Some(id) => {
            span.with_subscriber(|(id, d)| d.enter(id));
            id.into_u64()
        }
        None => 0,
    }
}

/// Leaves the span `enter` entered, as the profiler's work too.
fn exit(id: u64) {
    if id != 0 {
        hotpath_core::internal(|| {
            tracing_core::dispatcher::get_default(|d| d.exit(&Id::from_u64(id)))
        });
    }
}

static HOOK: PollHook = PollHook { enter, exit };

/// The layer `sqlx_tracing_layer()` returns.
#[derive(Debug, Default)]
pub struct SqlxLayer {
    _private: (),
}

impl SqlxLayer {
    pub(crate) fn new() -> SqlxLayer {
        super::SQLX_LAYER.store(true, std::sync::atomic::Ordering::Relaxed);
        hotpath_core::hook::set_poll_hook(&HOOK);
        SqlxLayer { _private: () }
    }
}

#[derive(Default)]
struct Fields {
    summary: String,
    statement: String,
    rows_returned: u64,
    rows_affected: u64,
    elapsed_secs: Option<f64>,
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        match field.name() {
            "summary" => self.summary = value.to_string(),
            "db.statement" => self.statement = value.to_string(),
            _ => {}
        }
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        match field.name() {
            "rows_returned" => self.rows_returned = value,
            "rows_affected" => self.rows_affected = value,
            _ => {}
        }
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.record_u64(field, value.max(0) as u64);
    }

    fn record_f64(&mut self, field: &Field, value: f64) {
        if field.name() == "elapsed_secs" {
            self.elapsed_secs = Some(value);
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        match field.name() {
            "summary" => self.summary = format!("{value:?}"),
            "db.statement" => self.statement = format!("{value:?}"),
            _ => {}
        }
    }
}

impl<S> tracing_subscriber::Layer<S> for SqlxLayer
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        if event.metadata().target() != "sqlx::query" {
            return;
        }
        hotpath_core::internal(|| {
            let mut f = Fields::default();
            event.record(&mut f);
            let Some(secs) = f.elapsed_secs else { return };
            let sql = if f.statement.trim().is_empty() {
                f.summary.as_str()
            } else {
                f.statement.trim()
            };
            let source = super::innermost().or_else(|| span_source(&ctx));
            super::record_query(super::Query {
                sql,
                backend: "sqlx",
                source,
                elapsed_ns: (secs * 1e9) as u64,
                rows_returned: f.rows_returned,
                rows_affected: f.rows_affected,
                error: false,
            });
        })
    }
}

/// The measured function whose span is current here, or an ancestor of it.
fn span_source<S>(ctx: &Context<'_, S>) -> Option<&'static CallSite>
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    let current = ctx.lookup_current()?;
    let g = SPANS.read();
    let spans = g.as_ref()?;
    current
        .scope()
        .find_map(|s| spans.by_id.get(&s.id().into_u64()).copied())
}
