//! `hotpath::tracing`: the spans a program already marks with `tracing` as report rows.
//!
//! [`layer`] is a `tracing_subscriber::Layer` that composes with the program's own
//! subscriber. Each span callsite chosen by the filter (`HOTPATH_TRACING`, or the
//! builder's [`tracing_filter`](crate::HotpathGuardBuilder::tracing_filter); default
//! every span at `INFO` or above) is a row of the timing section, named `target::name`,
//! with the callsite's file and line, and measured as an `async fn` is:
//!
//! * `calls`: spans closed (a span created and closed without being entered counts,
//!   with busy time 0);
//! * wall time: from the span's creation (for an `#[instrument] async fn`, the call) to
//!   its close;
//! * `polls`: enters; busy time: time entered; self time: time entered less the
//!   measured children inside the enters; recursion counts once.
//!
//! While a span is entered it is the innermost measured scope on its thread: measured
//! functions and other spans inside it are its children, and allocations, CPU time,
//! I/O, lock and channel waits and SQL/HTTP rows are charged to it. Allocations made
//! while a span is created belong to the enclosing scope. hotpath's own spans (the sqlx
//! integration's) are never rows.
//!
//! Without the `hotpath` feature, [`layer`] is a layer that wants no span or event.

/// The layer: `tracing_subscriber::registry().with(fmt::layer()).with(hotpath::tracing::layer())`.
///
/// Which spans become rows is decided once per callsite (one interest check per span
/// afterwards, and nothing more for a span the filter leaves out): `HOTPATH_TRACING`
/// (tracing's target filter syntax, `info,my_crate=debug`), else the session builder's
/// [`tracing_filter`](crate::HotpathGuardBuilder::tracing_filter), else `info`.
///
/// Without the `hotpath` feature: a layer that wants no span or event (the other
/// layers choose as they would without it).
pub fn layer<S>() -> impl tracing_subscriber::Layer<S>
where
    S: tracing_core::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    #[cfg(feature = "hotpath")]
    {
        use tracing_subscriber::Layer as _;
        on::SpanLayer.with_filter(on::SpanFilter)
    }
    #[cfg(not(feature = "hotpath"))]
    {
        // Not a bare `Identity`: a layer without a filter of its own wants every span
        // and event, so beside layers that all filter per layer, the registry would make
        // every span (`benches/tracing.rs`: ~240 ns a span instead of ~4). A per-layer
        // filter that wants nothing leaves the other layers' choice as it is.
        use tracing_subscriber::Layer as _;
        tracing_subscriber::layer::Identity::new()
            .with_filter(tracing_subscriber::filter::LevelFilter::OFF)
    }
}

#[cfg(feature = "hotpath")]
pub(crate) mod on {
    use std::collections::HashMap;
    use std::str::FromStr;

    use hotpath_core::fork;
    use hotpath_core::span::{SpanCall, SpanEnter};
    use hotpath_core::{CallSite, SiteKind};
    use tracing_core::span::{Attributes, Id};
    use tracing_core::subscriber::Interest;
    use tracing_core::{Metadata, Subscriber};
    use tracing_subscriber::filter::Targets;
    use tracing_subscriber::layer::{Context, Filter, Layer};
    use tracing_subscriber::registry::LookupSpan;

    /// The layer's tables (one lock: one fork rank).
    struct Tables {
        /// The filter in force (see [`super::layer`]); `None`: the default, `info`.
        filter: Option<Targets>,
        /// The call site of each span callsite seen, by the address of its metadata.
        sites: Option<HashMap<usize, &'static CallSite>>,
    }

    static TABLES: fork::RwLock<Tables> = fork::RwLock::new(
        fork::Rank::TracingSites,
        Tables {
            filter: None,
            sites: None,
        },
    );

    /// The filter `spec` (tracing's target filter syntax), or why it is not one.
    pub(crate) fn parse(spec: &str) -> Result<Targets, String> {
        Targets::from_str(spec).map_err(|e| e.to_string())
    }

    /// Puts `targets` in force (`None`: the default, `info`): callsites already
    /// registered are asked again.
    pub(crate) fn set_filter(targets: Option<Targets>) {
        TABLES.write().filter = targets;
        // Not under the lock: the filter's callsite_enabled takes it.
        tracing_core::callsite::rebuild_interest_cache();
    }

    fn would_enable(meta: &Metadata<'_>) -> bool {
        if !meta.is_span() || is_own(meta) {
            return false;
        }
        match &TABLES.read().filter {
            Some(t) => t.would_enable(meta.target(), meta.level()),
            None => *meta.level() <= tracing_core::Level::INFO,
        }
    }

    /// hotpath's own spans: the sqlx layer's, entered around measured polls.
    fn is_own(meta: &Metadata<'_>) -> bool {
        meta.name() == "hotpath" && meta.target() == "sqlx::query"
    }

    /// The per-layer filter: spans only, by the filter in force.
    pub(crate) struct SpanFilter;

    impl<S> Filter<S> for SpanFilter {
        fn enabled(&self, meta: &Metadata<'_>, _: &Context<'_, S>) -> bool {
            would_enable(meta)
        }

        fn callsite_enabled(&self, meta: &'static Metadata<'static>) -> Interest {
            if would_enable(meta) {
                Interest::always()
            } else {
                Interest::never()
            }
        }
    }

    /// The call site of spans of `meta`'s callsite, made the first time one is seen.
    fn site_of(meta: &'static Metadata<'static>) -> &'static CallSite {
        let key = meta as *const Metadata<'static> as usize;
        if let Some(site) = TABLES.read().sites.as_ref().and_then(|m| m.get(&key)) {
            return site;
        }
        hotpath_core::internal(|| {
            let mut g = TABLES.write();
            let sites = g.sites.get_or_insert_with(HashMap::new);
            *sites.entry(key).or_insert_with(|| {
                let name: &'static str =
                    Box::leak(format!("{}::{}", meta.target(), meta.name()).into_boxed_str());
                Box::leak(Box::new(CallSite::named(
                    name,
                    None,
                    meta.file().unwrap_or("<unknown>"),
                    meta.line().unwrap_or(0),
                    SiteKind::Span,
                )))
            })
        })
    }

    /// What a span carries while it lives: its call and the enters in progress.
    struct Call {
        call: SpanCall,
        /// The enters in progress: the first here (one, usually: no allocation), later
        /// ones (a span entered on several threads at once, or again on one) in `more`,
        /// innermost last.
        first: Option<SpanEnter>,
        more: Vec<SpanEnter>,
    }

    impl Call {
        fn push(&mut self, e: SpanEnter) {
            if self.first.is_none() && self.more.is_empty() {
                self.first = Some(e);
            } else {
                hotpath_core::internal(|| self.more.push(e));
            }
        }

        /// This thread's latest enter; an exit on another thread than its enter takes
        /// the latest of all.
        fn pop(&mut self) -> Option<SpanEnter> {
            if let Some(i) = self.more.iter().rposition(SpanEnter::is_here) {
                return Some(self.more.remove(i));
            }
            if self.first.as_ref().is_some_and(SpanEnter::is_here) {
                return self.first.take();
            }
            self.more.pop().or_else(|| self.first.take())
        }
    }

    /// The layer [`super::layer`] filters.
    pub(crate) struct SpanLayer;

    impl<S> Layer<S> for SpanLayer
    where
        S: Subscriber + for<'a> LookupSpan<'a>,
    {
        fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
            let site = site_of(attrs.metadata());
            let call = SpanCall::new(site);
            hotpath_core::internal(|| {
                if let Some(span) = ctx.span(id) {
                    span.extensions_mut().insert(Call {
                        call,
                        first: None,
                        more: Vec::new(),
                    });
                }
            });
        }

        fn on_enter(&self, id: &Id, ctx: Context<'_, S>) {
            let Some(span) = ctx.span(id) else { return };
            let mut ext = span.extensions_mut();
            let Some(c) = ext.get_mut::<Call>() else {
                return;
            };
            if let Some(e) = c.call.enter() {
                c.push(e);
            }
        }

        fn on_exit(&self, id: &Id, ctx: Context<'_, S>) {
            let Some(span) = ctx.span(id) else { return };
            let mut ext = span.extensions_mut();
            let Some(c) = ext.get_mut::<Call>() else {
                return;
            };
            if let Some(e) = c.pop() {
                c.call.exit(e);
            }
        }

        fn on_close(&self, id: Id, ctx: Context<'_, S>) {
            let Some(span) = ctx.span(&id) else { return };
            let Some(mut c) = hotpath_core::internal(|| span.extensions_mut().remove::<Call>())
            else {
                return;
            };
            // Closed while still entered (an enter never exited): those enters end now.
            while let Some(e) = c.pop() {
                c.call.exit(e);
            }
            let Call { call, more, .. } = c;
            call.close();
            hotpath_core::internal(|| drop(more));
        }
    }
}
