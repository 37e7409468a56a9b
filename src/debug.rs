//! Debug values: `dbg!`, `val!` and `gauge!` keep the last value of an expression or a
//! key, with its number of updates, for the `debug` section and the `/debug` route.
//!
//! Memory is bounded: a value's text is cut at [`MAX_TEXT`] bytes (formatting stops
//! there), and at most [`MAX_ENTRIES`] sites and keys are kept; updates of later ones are
//! counted in a note. Without the `hotpath` feature `dbg!` evaluates to its value and
//! the handles of `val!` and `gauge!` do nothing.

#[cfg(feature = "hotpath")]
pub(crate) use on::*;

/// Most `Debug` text kept per value, in bytes.
#[cfg_attr(not(feature = "hotpath"), allow(dead_code))]
pub const MAX_TEXT: usize = 256;
/// Most `dbg!` sites, `val!` keys and `gauge!` keys kept, together.
#[cfg_attr(not(feature = "hotpath"), allow(dead_code))]
pub const MAX_ENTRIES: usize = 1000;

/// Records the value of an expression, as `std::dbg!` shows it, and evaluates to it: the
/// `debug` section shows each `dbg!` site's last value (its `Debug` text) and how many
/// times it was evaluated. Nothing is printed.
///
/// ```
/// let n = hotpath::dbg!(2 + 3);
/// assert_eq!(n, 5);
/// let (a, b) = hotpath::dbg!(1, "two");
/// assert_eq!((a, b), (1, "two"));
/// ```
///
/// Cost: nothing without the `hotpath` feature; with it, formatting the value (at most
/// 256 bytes of it) and a lock, per evaluation: a debugging aid, not for hot loops.
#[macro_export]
macro_rules! dbg {
    ($val:expr $(,)?) => {
        $crate::__dbg_impl!($val)
    };
    ($($val:expr),+ $(,)?) => {
        ($($crate::dbg!($val)),+,)
    };
}

#[cfg(feature = "hotpath")]
#[doc(hidden)]
#[macro_export]
macro_rules! __dbg_impl {
    ($val:expr) => {
        match $val {
            tmp => {
                static __HOTPATH_DBG: $crate::__private::DbgSite = $crate::__private::DbgSite::new(
                    ::core::stringify!($val),
                    ::core::file!(),
                    ::core::line!(),
                );
                __HOTPATH_DBG.record(&tmp);
                tmp
            }
        }
    };
}

#[cfg(not(feature = "hotpath"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __dbg_impl {
    ($val:expr) => {
        match $val {
            tmp => tmp,
        }
    };
}

/// A named value whose last `Debug` text the `debug` section shows:
/// `hotpath::val!("state").set(&state)`.
///
/// ```
/// hotpath::val!("phase").set(&"loading");
/// hotpath::val!(format!("worker-{}", 3)).set(&[1, 2, 3]);
/// ```
///
/// The key is a string (`&str` or `String`); every `val!` with the same key updates one
/// entry. Without the `hotpath` feature the key is not evaluated and `set` does nothing.
#[macro_export]
macro_rules! val {
    ($key:expr $(,)?) => {
        $crate::__keyed_handle!(ValHandle, $key)
    };
}

/// The handle of `val!` (`ValHandle`) or `gauge!` (`GaugeHandle`) for `$key`.
#[cfg(feature = "hotpath")]
#[doc(hidden)]
#[macro_export]
macro_rules! __keyed_handle {
    ($Handle:ident, $key:expr) => {
        $crate::$Handle::__new($key, ::core::file!(), ::core::line!())
    };
}

/// The handle of `val!` (`ValHandle`) or `gauge!` (`GaugeHandle`) for `$key`.
#[cfg(not(feature = "hotpath"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __keyed_handle {
    // The key is type-checked (and its variables used), never evaluated.
    ($Handle:ident, $key:expr) => {{
        if false {
            let _ = &$key;
        }
        $crate::$Handle::__off()
    }};
}

/// A named number the `debug` section shows: `hotpath::gauge!("queue").set(3).inc(1)`.
///
/// ```
/// hotpath::gauge!("connections").set(10).inc(2).dec(1);
/// hotpath::gauge!("load").set(0.75);
/// ```
///
/// Every `gauge!` with the same key updates one entry. Without the `hotpath` feature the
/// key is not evaluated and the methods do nothing.
#[macro_export]
macro_rules! gauge {
    ($key:expr $(,)?) => {
        $crate::__keyed_handle!(GaugeHandle, $key)
    };
}

/// A number a gauge takes: every primitive integer and float.
pub trait IntoF64 {
    /// The value as `f64`.
    fn into_f64(self) -> f64;
}

macro_rules! into_f64 {
    ($($t:ty),*) => {
        $(impl IntoF64 for $t {
            #[inline]
            fn into_f64(self) -> f64 {
                self as f64
            }
        })*
    };
}
into_f64!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64);

/// Declares the handle type of a keyed value (`val!`, `gauge!`): the key's cell (none
/// past [`MAX_ENTRIES`]) and the macro's place with the feature, nothing without it, and
/// the constructors `__keyed_handle!` calls.
macro_rules! keyed_handle {
    ($(#[$doc:meta])* $Handle:ident, $kind:ident) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $Handle {
            #[cfg(feature = "hotpath")]
            cell: Option<&'static on::Cell>,
            #[cfg(feature = "hotpath")]
            at: (&'static str, u32),
        }

        impl $Handle {
            #[cfg(feature = "hotpath")]
            #[doc(hidden)]
            pub fn __new(key: impl AsRef<str>, file: &'static str, line: u32) -> $Handle {
                $Handle {
                    cell: on::keyed(on::Kind::$kind, key.as_ref(), file, line),
                    at: (file, line),
                }
            }

            #[cfg(not(feature = "hotpath"))]
            #[doc(hidden)]
            pub const fn __off() -> $Handle {
                $Handle {}
            }
        }
    };
}

keyed_handle!(
    /// What `val!` returns: [`ValHandle::set`] records a value.
    ValHandle,
    Val
);

impl ValHandle {
    /// Records `value`'s `Debug` text as the key's last value.
    #[inline]
    pub fn set<T: std::fmt::Debug + ?Sized>(&self, value: &T) {
        #[cfg(feature = "hotpath")]
        if let Some(c) = self.cell {
            c.set_text(value, self.at);
        }
        #[cfg(not(feature = "hotpath"))]
        let _ = value;
    }
}

keyed_handle!(
    /// What `gauge!` returns: set, raise or lower a number.
    GaugeHandle,
    Gauge
);

impl GaugeHandle {
    /// Sets the gauge to `value`.
    #[inline]
    pub fn set(&self, value: impl IntoF64) -> &Self {
        self.update(value, |_, value| value)
    }

    /// Adds `delta` to the gauge.
    #[inline]
    pub fn inc(&self, delta: impl IntoF64) -> &Self {
        self.update(delta, |v, delta| v + delta)
    }

    /// Subtracts `delta` from the gauge.
    #[inline]
    pub fn dec(&self, delta: impl IntoF64) -> &Self {
        self.update(delta, |v, delta| v - delta)
    }

    /// Replaces the gauge's value `v` by `f(v, by)`.
    #[inline]
    fn update(&self, by: impl IntoF64, f: impl Fn(f64, f64) -> f64) -> &Self {
        #[cfg(feature = "hotpath")]
        if let Some(c) = self.cell {
            let by = by.into_f64();
            c.update_gauge(|v| f(v, by), self.at);
        }
        #[cfg(not(feature = "hotpath"))]
        let _ = (by, f);
        self
    }
}

#[cfg(feature = "hotpath")]
pub(crate) mod on {
    use std::collections::HashMap;
    use std::fmt::Write as _;
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
    use std::sync::{Mutex, MutexGuard, OnceLock};

    use hotpath_core::fork;

    use super::{MAX_ENTRIES, MAX_TEXT};

    /// Which macro made an entry.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub(crate) enum Kind {
        Dbg,
        Val,
        Gauge,
    }

    impl Kind {
        fn name(self) -> &'static str {
            match self {
                Kind::Dbg => "dbg",
                Kind::Val => "val",
                Kind::Gauge => "gauge",
            }
        }
    }

    /// One entry: a `dbg!` site or a key.
    #[derive(Debug)]
    pub(crate) struct Cell {
        kind: Kind,
        key: &'static str,
        /// The last value's text and where it was set.
        last: Mutex<(String, &'static str, u32)>,
        updates: AtomicU64,
        /// A gauge's value, as `f64` bits.
        gauge: AtomicU64,
    }

    impl Cell {
        pub(crate) fn set_text<T: std::fmt::Debug + ?Sized>(
            &self,
            value: &T,
            at: (&'static str, u32),
        ) {
            hotpath_core::internal(|| {
                let mut w = Bounded(String::new());
                // An `Err` is the bound being reached: the text so far is kept.
                if write!(w, "{value:?}").is_err() {
                    w.0.push('…');
                }
                let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
                *last = (w.0, at.0, at.1);
                self.updates.fetch_add(1, Relaxed);
            })
        }

        pub(crate) fn update_gauge(&self, f: impl Fn(f64) -> f64, at: (&'static str, u32)) {
            let _ = self.gauge.fetch_update(Relaxed, Relaxed, |bits| {
                Some(f(f64::from_bits(bits)).to_bits())
            });
            self.updates.fetch_add(1, Relaxed);
            let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
            last.1 = at.0;
            last.2 = at.1;
        }
    }

    /// A `String` that refuses to grow past [`MAX_TEXT`] bytes.
    struct Bounded(String);

    impl std::fmt::Write for Bounded {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            let room = MAX_TEXT - self.0.len();
            if s.len() <= room {
                self.0.push_str(s);
                return Ok(());
            }
            let mut end = room;
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            self.0.push_str(&s[..end]);
            Err(std::fmt::Error)
        }
    }

    #[derive(Default)]
    struct Registry {
        all: Vec<&'static Cell>,
        by_key: HashMap<(Kind, String), &'static Cell>,
        /// Updates of sites and keys past [`MAX_ENTRIES`].
        dropped: u64,
    }

    static REGISTRY: Mutex<Option<Registry>> = Mutex::new(None);

    /// The registry's part in `fork()`: its lock, then every entry's
    /// ([`fork_prepare`], [`fork_release`]), registered at the registry's first use.
    static FORK: fork::Hooks = fork::Hooks::new(
        fork::Rank::DebugValues,
        |_| fork_prepare(),
        |_| fork_release(),
        |_| fork_release(),
    );

    fn registry() -> MutexGuard<'static, Option<Registry>> {
        FORK.register();
        REGISTRY.lock().unwrap_or_else(|e| e.into_inner())
    }

    thread_local! {
        /// The registry's lock and every entry's, held by the thread calling `fork()`
        /// between [`fork_prepare`] and [`fork_release`].
        static FORK_REGISTRY: std::cell::RefCell<Option<MutexGuard<'static, Option<Registry>>>> =
            const { std::cell::RefCell::new(None) };
        #[allow(clippy::type_complexity)]
        static FORK_CELLS: std::cell::RefCell<Vec<MutexGuard<'static, (String, &'static str, u32)>>> =
            const { std::cell::RefCell::new(Vec::new()) };
    }

    /// Before `fork()` (a `pthread_atfork` prepare handler): takes the registry's lock,
    /// then every entry's, so that no other thread holds one when the address space is
    /// copied (a child updating or reporting that entry would wait forever).
    fn fork_prepare() {
        let g = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
        let _ = FORK_CELLS.try_with(|held| {
            let mut held = held.borrow_mut();
            if let Some(r) = g.as_ref() {
                hotpath_core::internal(|| held.reserve(r.all.len()));
                for c in &r.all {
                    held.push(c.last.lock().unwrap_or_else(|e| e.into_inner()));
                }
            }
        });
        let _ = FORK_REGISTRY.try_with(|h| *h.borrow_mut() = Some(g));
    }

    /// After `fork()`, in the parent or the child: releases what [`fork_prepare`] took
    /// (the list of held entries keeps its memory: nothing is freed).
    fn fork_release() {
        let _ = FORK_CELLS.try_with(|held| held.borrow_mut().clear());
        let _ = FORK_REGISTRY.try_with(|h| h.borrow_mut().take());
    }

    fn new_cell(
        r: &mut Registry,
        kind: Kind,
        key: &str,
        file: &'static str,
        line: u32,
    ) -> Option<&'static Cell> {
        if r.all.len() >= MAX_ENTRIES {
            r.dropped += 1;
            return None;
        }
        let cell: &'static Cell = Box::leak(Box::new(Cell {
            kind,
            key: key.to_string().leak(),
            last: Mutex::new((String::new(), file, line)),
            updates: AtomicU64::new(0),
            gauge: AtomicU64::new(0f64.to_bits()),
        }));
        r.all.push(cell);
        Some(cell)
    }

    /// The entry of a `val!` or `gauge!` key, made on first use; `None` past the bound.
    pub(crate) fn keyed(
        kind: Kind,
        key: &str,
        file: &'static str,
        line: u32,
    ) -> Option<&'static Cell> {
        hotpath_core::internal(|| {
            let mut g = registry();
            let r = g.get_or_insert_with(Registry::default);
            if let Some(c) = r.by_key.get(&(kind, key.to_string())) {
                return Some(*c);
            }
            let c = new_cell(r, kind, key, file, line)?;
            r.by_key.insert((kind, key.to_string()), c);
            Some(c)
        })
    }

    /// One `dbg!` call site (a `static` per expansion).
    #[derive(Debug)]
    pub struct DbgSite {
        expr: &'static str,
        file: &'static str,
        line: u32,
        /// Its entry (`None` past [`MAX_ENTRIES`]), set under the registry's lock: a
        /// `fork()` (which takes that lock first) never copies it half set, which would
        /// leave the child waiting for it.
        cell: OnceLock<Option<&'static Cell>>,
    }

    impl DbgSite {
        /// The site of `expr` at `file:line`.
        pub const fn new(expr: &'static str, file: &'static str, line: u32) -> Self {
            DbgSite {
                expr,
                file,
                line,
                cell: OnceLock::new(),
            }
        }

        /// The site's entry, made on first use; `None` past the bound.
        fn cell(&self) -> Option<&'static Cell> {
            if let Some(c) = self.cell.get() {
                return *c;
            }
            hotpath_core::internal(|| {
                let mut g = registry();
                *self.cell.get_or_init(|| {
                    let r = g.get_or_insert_with(Registry::default);
                    new_cell(r, Kind::Dbg, self.expr, self.file, self.line)
                })
            })
        }

        /// Records `value` as the site's last value.
        pub fn record<T: std::fmt::Debug + ?Sized>(&self, value: &T) {
            match self.cell() {
                Some(c) => c.set_text(value, (self.file, self.line)),
                None => {
                    let mut g = registry();
                    if let Some(r) = g.as_mut() {
                        r.dropped += 1;
                    }
                }
            }
        }
    }

    /// Every entry with at least one update, and the updates of entries not kept.
    pub(crate) fn entries() -> (Vec<crate::report::DebugEntry>, u64) {
        let g = registry();
        let Some(r) = g.as_ref() else {
            return (Vec::new(), 0);
        };
        let entries = r
            .all
            .iter()
            .filter(|c| c.updates.load(Relaxed) > 0)
            .map(|c| {
                let (text, file, line) = c.last.lock().unwrap_or_else(|e| e.into_inner()).clone();
                let gauge = (c.kind == Kind::Gauge).then(|| f64::from_bits(c.gauge.load(Relaxed)));
                crate::report::DebugEntry {
                    kind: c.kind.name().to_string(),
                    key: c.key.to_string(),
                    value: gauge.map_or(text, |g| g.to_string()),
                    gauge,
                    updates: c.updates.load(Relaxed),
                    file: file.to_string(),
                    line,
                }
            })
            .collect();
        (entries, r.dropped)
    }
}
