//! Call sites: one `static` per instrumented function, block or stream, numbered on
//! first use.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use crate::fork::{Mutex, Rank};

/// Numbers a call site can be given, 0 (never given) included: each thread's shard
/// addresses one slot per number.
pub(crate) const IDS: usize = 1 << 14;

/// Most call sites one process can number, the overflow rows included. A site first
/// used after the others took every number shares the overflow row of its kind
/// ([`OVERFLOW_NAMES`]): its calls are counted and timed there.
pub const MAX_SITES: usize = IDS - 1;

/// Sampled events of a call site timed in full at the start of each session before its
/// sampling rate applies ([`CallSite::warming`]).
pub const WARM_UP: u64 = 256;

/// Names of the overflow rows, one per kind of site ([`SiteKind::overflow_row`]).
pub const OVERFLOW_NAMES: [&str; 11] = [
    "(more call sites: functions)",
    "(more call sites: async functions)",
    "(more call sites: blocks)",
    "(more call sites: I/O)",
    "(more call sites: locks)",
    "(more call sites: channels)",
    "(more call sites: streams)",
    "(more call sites: futures)",
    "(more call sites: SQL queries)",
    "(more call sites: HTTP endpoints)",
    "(more call sites: server routes)",
];

static OVERFLOW_SITES: [CallSite; 11] = [
    CallSite::overflow(SiteKind::Function),
    CallSite::overflow(SiteKind::AsyncFunction),
    CallSite::overflow(SiteKind::Block),
    CallSite::overflow(SiteKind::Io),
    CallSite::overflow(SiteKind::Lock),
    CallSite::overflow(SiteKind::Channel),
    CallSite::overflow(SiteKind::Stream),
    CallSite::overflow(SiteKind::Future),
    CallSite::overflow(SiteKind::Sql),
    CallSite::overflow(SiteKind::HttpClient),
    CallSite::overflow(SiteKind::HttpServer),
];

/// Sites that were given an overflow row's number.
static OVERFLOWED: AtomicU64 = AtomicU64::new(0);

/// What a call site instruments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SiteKind {
    /// A synchronous function (`#[measure]`).
    Function,
    /// An `async fn` (`#[measure]`): measured per poll, wall time from first poll to `Ready`.
    AsyncFunction,
    /// A block (`measure_block!`).
    Block,
    /// A `tracing` span callsite (`hotpath::tracing::layer()`): measured as an `async fn`
    /// is, its enters as polls, wall time from the span's creation to its close.
    Span,
    /// The profiler's own calibration scope; never reported.
    Internal,
    /// One direction of an I/O entry (`io!`): read, write, flush, shutdown or seek
    /// operations. Reported in the I/O section, not as a function.
    Io,
    /// One mode of a lock site (`mutex!`, `rw_lock!`): its exclusive, read, write or
    /// upgradable acquisitions. Reported in the lock sections, not as a function.
    Lock,
    /// One channel entry (`channel!`): a call site and message type, or one instance with
    /// `iter = true`. Reported in the channels section.
    Channel,
    /// One stream entry (`stream!`). Reported in the streams section.
    Stream,
    /// A future measured per call (`future!`, `#[future_fn]`): reported in the futures
    /// section only.
    Future,
    /// An `async fn` under `#[measure(future = true)]`: reported both as a function (timing)
    /// and in the futures section.
    AsyncFunctionFuture,
    /// One normalised SQL query issued from one function (`sqlx`, `diesel`): interned at
    /// run time. Reported in the SQL section.
    Sql,
    /// One HTTP client endpoint (method and URL template, or label) called from one
    /// function. Reported in the HTTP section.
    HttpClient,
    /// One HTTP server route (method and matched route). Reported in the server section.
    HttpServer,
}

impl SiteKind {
    /// Whether sites of this kind are measured functions or blocks (the rows of the
    /// timing, alloc and cpu sections), as opposed to the sites of wrapped values (`io!`,
    /// locks, channels, streams, `future!`).
    pub const fn is_function(self) -> bool {
        matches!(
            self,
            SiteKind::Function
                | SiteKind::AsyncFunction
                | SiteKind::Block
                | SiteKind::AsyncFunctionFuture
                | SiteKind::Span
        )
    }

    /// Whether sites of this kind are rows of the futures section.
    pub fn in_futures(self) -> bool {
        matches!(self, SiteKind::Future | SiteKind::AsyncFunctionFuture)
    }

    /// Whether this kind measures an `async fn` or a future, per poll.
    pub fn is_async(self) -> bool {
        matches!(
            self,
            SiteKind::AsyncFunction
                | SiteKind::Future
                | SiteKind::AsyncFunctionFuture
                | SiteKind::Span
        )
    }

    /// The overflow row ([`OVERFLOW_NAMES`]) that counts the calls of sites of this kind
    /// first used after every number was taken ([`MAX_SITES`]).
    pub const fn overflow_row(self) -> usize {
        match self {
            SiteKind::Function | SiteKind::Internal => 0,
            // Spans are measured as async functions are.
            SiteKind::AsyncFunction | SiteKind::AsyncFunctionFuture | SiteKind::Span => 1,
            SiteKind::Block => 2,
            SiteKind::Io => 3,
            SiteKind::Lock => 4,
            SiteKind::Channel => 5,
            SiteKind::Stream => 6,
            SiteKind::Future => 7,
            SiteKind::Sql => 8,
            SiteKind::HttpClient => 9,
            SiteKind::HttpServer => 10,
        }
    }
}

/// Static description of one instrumented place. Created by the macros as a `static`.
pub struct CallSite {
    id: AtomicU32,
    /// Warm-up of sampled events: `epoch << 16 | events timed so far` (see
    /// [`CallSite::warming`]).
    warm: AtomicU64,
    name: Name,
    label: Option<&'static str>,
    file: &'static str,
    line: u32,
    kind: SiteKind,
}

impl std::fmt::Debug for CallSite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallSite")
            .field("name", &self.name())
            .field("label", &self.label)
            .field("file", &self.file)
            .field("line", &self.line)
            .field("kind", &self.kind)
            .finish()
    }
}

impl CallSite {
    /// A call site. `name` is called once, when the report is made.
    pub const fn new(
        name: fn() -> &'static str,
        label: Option<&'static str>,
        file: &'static str,
        line: u32,
        kind: SiteKind,
    ) -> Self {
        CallSite::with(Name::Fn(name), label, file, line, kind)
    }

    /// A site not numbered yet, named by `name`.
    const fn with(
        name: Name,
        label: Option<&'static str>,
        file: &'static str,
        line: u32,
        kind: SiteKind,
    ) -> Self {
        CallSite {
            id: AtomicU32::new(0),
            warm: AtomicU64::new(0),
            name,
            label,
            file,
            line,
            kind,
        }
    }

    /// Whether this event of the site is one of its first [`WARM_UP`] sampled events in
    /// the session, timed whatever the rate: a lock taken once, a channel that carries
    /// ten messages are timed in full, and only busy sites are sampled. One load and
    /// compare once the warm-up is over.
    #[inline(always)]
    pub fn warming(&'static self) -> bool {
        let done = (crate::state::epoch() << 16) | WARM_UP;
        self.warm.load(Relaxed) != done && self.warm_step(done)
    }

    #[cold]
    #[inline(never)]
    fn warm_step(&self, done: u64) -> bool {
        let w = self.warm.load(Relaxed);
        let base = done & !0xFFFF;
        let next = if w & !0xFFFF != base {
            base | 1
        } else if w >= done {
            return false;
        } else {
            w + 1
        };
        // A racing thread may have moved it on: this event is timed all the same (at
        // most one extra per racing thread).
        let _ = self.warm.compare_exchange(w, next, Relaxed, Relaxed);
        true
    }

    /// The site's number, assigning one on first use.
    #[inline(always)]
    pub fn id(&'static self) -> u32 {
        let id = self.id.load(Relaxed);
        if id != 0 {
            id
        } else {
            self.register()
        }
    }

    /// The site's number if it has one (0 never is), without assigning one: for
    /// bookkeeping about sites already in use.
    #[inline(always)]
    pub fn assigned_id(&self) -> Option<u32> {
        match self.id.load(Relaxed) {
            0 => None,
            id => Some(id),
        }
    }

    #[cold]
    #[inline(never)]
    fn register(&'static self) -> u32 {
        // Numbering a site takes the registry's lock and may grow it: first-use work
        // whose cost depends on the other threads (`crate::hook::set_cold_hook`).
        crate::hook::cold::cold(|| self.register_locked())
    }

    fn register_locked(&'static self) -> u32 {
        let mut sites = SITES.lock();
        let id = self.id.load(Relaxed);
        if id != 0 {
            return id;
        }
        if sites.is_empty() {
            sites.push(&PLACEHOLDER);
        }
        // The last numbers go to the overflow rows, pushed when the others are taken.
        let first_overflow = MAX_SITES + 1 - OVERFLOW_SITES.len();
        if sites.len() == first_overflow {
            crate::internal(|| sites.extend(OVERFLOW_SITES.iter()));
        }
        let id = if sites.len() > first_overflow {
            OVERFLOWED.fetch_add(1, Relaxed);
            (first_overflow + self.kind.overflow_row()) as u32
        } else {
            crate::internal(|| sites.push(self));
            (sites.len() - 1) as u32
        };
        self.id.store(id, Relaxed);
        id
    }

    /// A call site named by `name`: known at compile time (a wrapped value's site, e.g.
    /// `concat!(file!(), ":", line!())`), usable in a `static`; or made at run time (an I/O
    /// entry's direction), leaked (`Box::leak`) to get the `&'static` the measuring
    /// functions take.
    pub const fn named(
        name: &'static str,
        label: Option<&'static str>,
        file: &'static str,
        line: u32,
        kind: SiteKind,
    ) -> Self {
        CallSite::with(Name::Str(name), label, file, line, kind)
    }

    const fn overflow(kind: SiteKind) -> Self {
        CallSite::with(
            Name::Str(OVERFLOW_NAMES[kind.overflow_row()]),
            None,
            "",
            0,
            kind,
        )
    }

    /// Whether this is an overflow row ([`OVERFLOW_NAMES`]): the site of the calls of
    /// every site of its kind first used after [`MAX_SITES`] numbers were taken.
    pub fn is_overflow(&self) -> bool {
        OVERFLOW_SITES.iter().any(|o| std::ptr::eq(o, self))
    }

    /// Fully qualified name: `crate::module::Type::method`, `<crate::T as Trait>::method`,
    /// or a block's label.
    pub fn name(&self) -> &'static str {
        match self.name {
            Name::Fn(f) => clean_name(f()),
            Name::Str(s) => s,
        }
    }

    /// This site with the label `label`, given at run time (`future!(f, label = name)`):
    /// a site of its own per distinct label, named and placed as this one, and past
    /// [`entries_limit`](crate::entries_limit) labels one shared site labelled
    /// [`OVERFLOW_LABEL`](crate::labels::OVERFLOW_LABEL) (see [`crate::labels`]).
    pub fn labelled(&'static self, label: &str) -> &'static CallSite {
        crate::labels::labelled(self, label, |label| {
            CallSite::with(self.name, Some(label), self.file, self.line, self.kind)
        })
    }

    /// The `label = "..."` given to the macro, if any.
    pub fn label(&self) -> Option<&'static str> {
        self.label
    }

    /// Source file.
    pub fn file(&self) -> &'static str {
        self.file
    }

    /// Source line.
    pub fn line(&self) -> u32 {
        self.line
    }

    /// What the site instruments.
    #[inline]
    pub fn kind(&self) -> SiteKind {
        self.kind
    }
}

/// How a site is named: by a function the macros generate (resolved when reported), or
/// by a string.
#[derive(Clone, Copy)]
enum Name {
    Fn(fn() -> &'static str),
    Str(&'static str),
}

static PLACEHOLDER: CallSite = CallSite::new(|| "", None, "", 0, SiteKind::Internal);
static SITES: Mutex<Vec<&'static CallSite>> = Mutex::new(Rank::CallSites, Vec::new());

/// Every numbered site, indexed by id (index 0 is a placeholder).
pub(crate) fn all() -> Vec<&'static CallSite> {
    let sites = SITES.lock();
    crate::internal(|| sites.clone())
}

/// The site numbered `id` (as [`CallSite::id`] gave it), if there is one.
pub fn site_by_id(id: u32) -> Option<&'static CallSite> {
    let sites = SITES.lock();
    sites.get(id as usize).copied().filter(|_| id != 0)
}

/// Sites that share an overflow row because [`MAX_SITES`] numbers were taken.
pub(crate) fn overflowed() -> u64 {
    OVERFLOWED.load(Relaxed)
}

/// Strips the helper items the macros use to name a function
/// (`path::__HOTPATH_SITE::__hp` → `path`), the `{{closure}}` segments of async bodies and
/// closures, and elided lifetimes (`Index<'_>` → `Index`, `Map<'_, K>` → `Map<K>`).
fn clean_name(raw: &'static str) -> &'static str {
    const SUFFIX: &str = "::__HOTPATH_SITE::__hp";
    let mut name = raw.strip_suffix(SUFFIX).unwrap_or(raw);
    while let Some(n) = name.strip_suffix("::{{closure}}") {
        name = n;
    }
    if !name.contains("'_") && !name.contains("{{closure}}") {
        return name;
    }
    // Rare and done once per site per report: leaking the cleaned copy is fine.
    let cleaned = name
        .replace("::{{closure}}", "")
        .replace("<'_>", "")
        .replace("'_, ", "");
    Box::leak(cleaned.into_boxed_str())
}

/// `type_name_of_val` of a function item, for the macros' name helper.
#[doc(hidden)]
pub fn type_name_of<T>(_: &T) -> &'static str {
    std::any::type_name::<T>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_lose_helper_items_closures_and_elided_lifetimes() {
        assert_eq!(clean_name("a::f::__HOTPATH_SITE::__hp"), "a::f");
        assert_eq!(
            clean_name("a::f::{{closure}}::__HOTPATH_SITE::__hp"),
            "a::f"
        );
        assert_eq!(
            clean_name("a::main::{{closure}}::{{closure}}::__HOTPATH_SITE::__hp"),
            "a::main"
        );
        assert_eq!(
            clean_name("a::Index<'_>::build::__HOTPATH_SITE::__hp"),
            "a::Index::build"
        );
        assert_eq!(
            clean_name("<a::S<'_> as core::fmt::Display>::fmt"),
            "<a::S as core::fmt::Display>::fmt"
        );
        assert_eq!(clean_name("a::Map<'_, u8>::get"), "a::Map<u8>::get");
        assert_eq!(clean_name("a::f::{{closure}}::g"), "a::f::g");
        assert_eq!(clean_name("plain"), "plain");
    }

    #[test]
    fn each_kind_has_its_overflow_row_at_its_place() {
        for (i, site) in OVERFLOW_SITES.iter().enumerate() {
            assert_eq!(site.kind().overflow_row(), i);
            assert_eq!(site.name(), OVERFLOW_NAMES[i]);
            assert!(site.is_overflow());
        }
        assert!(!PLACEHOLDER.is_overflow());
    }

    #[test]
    fn names_come_from_the_enclosing_item() {
        static __HOTPATH_SITE: CallSite = CallSite::new(
            {
                fn __hp() -> &'static str {
                    type_name_of(&__hp)
                }
                __hp
            },
            None,
            file!(),
            line!(),
            SiteKind::Function,
        );
        assert_eq!(
            __HOTPATH_SITE.name(),
            "hotpath_core::site::tests::names_come_from_the_enclosing_item"
        );
        let a = __HOTPATH_SITE.id();
        assert!(a > 0);
        assert_eq!(__HOTPATH_SITE.id(), a);
        assert!(std::ptr::eq(all()[a as usize], &__HOTPATH_SITE));
    }
}
