//! SQL queries, HTTP client calls and HTTP server requests as call sites (feature
//! `hotpath`; the front ends are behind their own features).
//!
//! A query or request is keyed by its normalised text (query, endpoint, route) and the
//! function that issued it. Each distinct key is interned once as a leaked
//! [`CallSite`] of kind `Sql`, `HttpClient` or `HttpServer`; a thread keeps a small cache
//! from the hash of the raw text to the site, so a repeated query costs a hash and a
//! lookup, not a normalisation. The numbers then go into the calling thread's slot of
//! that site like any other operation: no lock, no queue, no thread of its own.
//! Distinct keys are capped (`HOTPATH_ENTRIES_LIMIT`, 1000); later ones fold into
//! `<other>`.

// Without a front end (sqlx, diesel, reqwest, ureq, axum) nothing records: the sections
// are empty and the recording side unused.
#![cfg_attr(
    not(any(
        feature = "sqlx",
        feature = "diesel",
        feature = "reqwest-0-12",
        feature = "reqwest-0-13",
        feature = "ureq-3",
        feature = "axum-0-8"
    )),
    allow(dead_code)
)]

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::OnceLock;

use hotpath_core::fork;
use hotpath_core::op::{Here, Wait};
use hotpath_core::{CallSite, SiteKind};

pub(crate) mod normalize;
#[cfg(feature = "sqlx")]
pub(crate) mod sqlx;

#[cfg(feature = "diesel")]
pub(crate) mod diesel;

/// What an interned site stands for.
#[derive(Clone, Debug)]
pub(crate) struct Info {
    /// `sqlx`, `diesel`, `reqwest`, `ureq`, `axum`, `tower`.
    pub backend: &'static str,
    /// The function that issued it.
    pub source: Option<&'static CallSite>,
    /// The label given to the client, if any.
    pub label: Option<&'static str>,
}

struct Interned {
    /// By kind, key, source and backend: a row is one client library's or driver's.
    sites: HashMap<(SiteKind, String, usize, &'static str), &'static CallSite>,
    info: HashMap<usize, Info>,
    distinct: HashMap<SiteKind, usize>,
}

static INTERNED: OnceLock<fork::Mutex<Interned>> = OnceLock::new();

fn interned() -> std::sync::MutexGuard<'static, Interned> {
    INTERNED
        .get_or_init(|| {
            fork::Mutex::new(
                fork::Rank::ServiceRows,
                Interned {
                    sites: HashMap::new(),
                    info: HashMap::new(),
                    distinct: HashMap::new(),
                },
            )
        })
        .lock()
}

/// Distinct keys per kind before they fold into `<other>` (`HOTPATH_ENTRIES_LIMIT`).
fn entries_limit() -> usize {
    hotpath_core::entries_limit()
}

/// Where `site` came from: its backend, source function and label.
pub(crate) fn info(site: &'static CallSite) -> Option<Info> {
    interned().info.get(&(site as *const _ as usize)).cloned()
}

/// The site of `key` issued by `source` (slow path: normalised text in hand).
fn intern(
    kind: SiteKind,
    key: String,
    source: Option<&'static CallSite>,
    info: Info,
) -> &'static CallSite {
    let src = source.map_or(0, |s| s as *const _ as usize);
    let backend = info.backend;
    let mut g = interned();
    if let Some(s) = g.sites.get(&(kind, key.clone(), src, backend)) {
        return s;
    }
    let n = g.distinct.get(&kind).copied().unwrap_or(0);
    let key = if n >= entries_limit() {
        "<other>".to_string()
    } else {
        key
    };
    if let Some(s) = g.sites.get(&(kind, key.clone(), src, backend)) {
        return s;
    }
    *g.distinct.entry(kind).or_default() += 1;
    let name: &'static str = Box::leak(key.clone().into_boxed_str());
    let site: &'static CallSite =
        Box::leak(Box::new(CallSite::named(name, info.label, "", 0, kind)));
    g.info.insert(site as *const _ as usize, info);
    g.sites.insert((kind, key, src, backend), site);
    site
}

type Cache = HashMap<(u64, usize), &'static CallSite>;

thread_local! {
    static CACHE: RefCell<Cache> = RefCell::new(HashMap::new());
}

/// Entries a thread's cache holds before it starts over.
const CACHE_SIZE: usize = 512;

/// A 64-bit hash of `parts` (std's SipHash with fixed keys).
fn hash(kind: SiteKind, parts: &[&str]) -> u64 {
    static STATE: OnceLock<std::collections::hash_map::RandomState> = OnceLock::new();
    let mut h = STATE.get_or_init(Default::default).build_hasher();
    h.write_u8(kind as u8);
    for p in parts {
        h.write(p.as_bytes());
        h.write_u8(0xff);
    }
    h.finish()
}

/// The site for the raw text `parts` issued by `source`: from the thread's cache, or
/// normalised by `key` and interned.
pub(crate) fn site(
    kind: SiteKind,
    parts: &[&str],
    source: Option<&'static CallSite>,
    info: impl FnOnce() -> Info,
    key: impl FnOnce() -> String,
) -> &'static CallSite {
    let h = hash(kind, parts);
    let src = source.map_or(0, |s| s as *const _ as usize);
    let cached = CACHE
        .try_with(|c| c.borrow().get(&(h, src)).copied())
        .ok()
        .flatten();
    if let Some(s) = cached {
        return s;
    }
    hotpath_core::internal(|| {
        let s = intern(kind, key(), source, info());
        let _ = CACHE.try_with(|c| {
            let mut c = c.borrow_mut();
            if c.len() >= CACHE_SIZE {
                c.clear();
            }
            c.insert((h, src), s);
        });
        s
    })
}

/// Nanoseconds per clock tick, once measured.
pub(crate) fn ns_per_tick() -> f64 {
    static NS: OnceLock<f64> = OnceLock::new();
    *NS.get_or_init(hotpath_core::clock::ns_per_tick)
}

/// `ns` in clock ticks, the unit of slots.
pub(crate) fn ticks(ns: u64) -> u64 {
    (ns as f64 / ns_per_tick()).round() as u64
}

/// The innermost measured function on this thread, if one is running.
pub(crate) fn innermost() -> Option<&'static CallSite> {
    let id = Here::existing()?.function_id();
    (id != 0).then(|| hotpath_core::site_by_id(id)).flatten()
}

/// Whether any SQL event arrived, and whether the sqlx layer was installed.
pub(crate) static SQL_EVENTS: AtomicU64 = AtomicU64::new(0);
/// Set when `sqlx_tracing_layer()` made a layer.
pub(crate) static SQLX_LAYER: AtomicBool = AtomicBool::new(false);

/// What one finished query adds.
pub(crate) struct Query<'a> {
    pub sql: &'a str,
    pub backend: &'static str,
    pub source: Option<&'static CallSite>,
    pub elapsed_ns: u64,
    pub rows_returned: u64,
    pub rows_affected: u64,
    pub error: bool,
}

/// Records a finished query on this thread, and charges its time to its source function
/// (the `waits` section).
pub(crate) fn record_query(q: Query<'_>) {
    SQL_EVENTS.fetch_add(1, Ordering::Relaxed);
    let Some(here) = Here::get() else { return };
    let backend = q.backend;
    let source = q.source;
    let site = site(
        SiteKind::Sql,
        &[backend, q.sql],
        source,
        || Info {
            backend,
            source,
            label: None,
        },
        || normalize::sql(q.sql),
    );
    let Some(slot) = here.slot(site) else { return };
    let dt = ticks(q.elapsed_ns);
    slot.record_op(dt);
    slot.c.rows_returned.add(q.rows_returned);
    slot.c.rows_affected.add(q.rows_affected);
    if q.error {
        slot.c.errors.add(1);
    }
    charge(here, source, Wait::Sql, dt);
}

/// Charges `dt` ticks of `wait` to `source`: through the scope stack when it is this
/// thread's innermost function, else to its slot on this thread (a driver thread).
pub(crate) fn charge(here: Here, source: Option<&'static CallSite>, wait: Wait, dt: u64) {
    let Some(source) = source else { return };
    if here.function_id() == source.id() {
        here.charge(wait, dt);
    } else if let Some(slot) = here.slot(source) {
        match wait {
            Wait::Sql => slot.c.wait_sql.add(dt),
            Wait::Http => slot.c.wait_http.add(dt),
            _ => {}
        }
    }
}

/// Status class index of `status`: 0 for 1xx ... 4 for 5xx; `None` otherwise.
pub(crate) fn status_class(status: u16) -> Option<usize> {
    match status {
        100..=599 => Some(status as usize / 100 - 1),
        _ => None,
    }
}

/// A new session: nothing to reset (sites and their slots are cleared with the epoch);
/// the sqlx event count starts over for the "no event arrived" note.
pub(crate) fn begin_session() {
    SQL_EVENTS.store(0, Ordering::Relaxed);
}
