//! Lock sites: one per `mutex!`/`rw_lock!` expansion (or per source location of a
//! `hotpath::wrap` constructor), the registry of those with a lock acquired, and the
//! wrapped type's name as users write it.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::OnceLock;

use hotpath_core::fork;

use hotpath_core::op::Sampler;
use hotpath_core::{CallSite, SiteKind};

/// What a lock site wraps: a mutex, or a read-write lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockKind {
    /// A mutual-exclusion lock: exclusive acquisitions only.
    Mutex,
    /// A read-write lock: read, write and (parking_lot, async-lock) upgradable
    /// acquisitions, each mode with its own numbers.
    RwLock,
}

/// One `mutex!` or `rw_lock!` call site: a `static` per macro expansion, made in const
/// context so that the wrapped lock can live in a `static` itself.
#[derive(Debug)]
pub struct LockSite {
    kind: LockKind,
    /// Exclusive acquisitions (a mutex) or write acquisitions (a read-write lock). Its
    /// label and place are the site's.
    write: CallSite,
    /// Read acquisitions.
    read: CallSite,
    /// Upgradable read acquisitions.
    upgradable: CallSite,
    /// Locks of this site that were acquired at least once.
    instances: AtomicU64,
    /// The wrapped type, known at the first acquisition.
    type_name: OnceLock<&'static str>,
}

impl LockSite {
    /// A site at `file:line`, `name` being `concat!(file!(), ":", line!())`.
    pub const fn new(
        name: &'static str,
        label: Option<&'static str>,
        file: &'static str,
        line: u32,
        kind: LockKind,
    ) -> Self {
        LockSite {
            kind,
            write: CallSite::named(name, label, file, line, SiteKind::Lock),
            read: CallSite::named(name, label, file, line, SiteKind::Lock),
            upgradable: CallSite::named(name, label, file, line, SiteKind::Lock),
            instances: AtomicU64::new(0),
            type_name: OnceLock::new(),
        }
    }

    /// This site with the label `label`, given at run time (`mutex!(m, label = name)`):
    /// a site of its own per distinct label, and past `HOTPATH_ENTRIES_LIMIT` labels one
    /// shared site labelled `<other>` (`hotpath_core::labels`).
    pub fn labelled(&'static self, label: &str) -> &'static LockSite {
        hotpath_core::labels::labelled(self, label, |label| {
            LockSite::new(
                self.write.name(),
                Some(label),
                self.file(),
                self.line(),
                self.kind,
            )
        })
    }

    /// The label, or `file:line`.
    pub fn name(&self) -> String {
        match self.label() {
            Some(l) => l.to_string(),
            None => format!("{}:{}", self.file(), self.line()),
        }
    }

    /// The `label = ...` given to the macro.
    pub fn label(&self) -> Option<&'static str> {
        self.write.label()
    }

    /// Source file of the macro.
    pub fn file(&self) -> &'static str {
        self.write.file()
    }

    /// Source line of the macro.
    pub fn line(&self) -> u32 {
        self.write.line()
    }

    /// A mutex or a read-write lock.
    pub fn kind(&self) -> LockKind {
        self.kind
    }

    /// The wrapped type (`std::sync::Mutex<u64>`), once a lock of the site was acquired.
    pub fn type_name(&self) -> Option<&'static str> {
        self.type_name.get().copied()
    }

    /// Locks made at this site that were acquired at least once.
    pub fn instances(&self) -> u64 {
        self.instances.load(Relaxed)
    }

    /// The call site of a mode's acquisitions.
    pub fn mode(&'static self, mode: Mode) -> &'static CallSite {
        match mode {
            Mode::Write => &self.write,
            Mode::Read => &self.read,
            Mode::Upgradable => &self.upgradable,
        }
    }

    /// The backend, from the wrapped type's path: `std`, `parking_lot`, `tokio`,
    /// `async-lock` (or the type's first path segment).
    pub fn backend(&self) -> Option<&'static str> {
        let t = self.type_name()?;
        let first = t.split("::").next().unwrap_or(t);
        Some(match first {
            "std" => "std",
            "lock_api" | "parking_lot" => "parking_lot",
            "tokio" => "tokio",
            "async_lock" => "async-lock",
            other => other,
        })
    }

    /// The sampler of this site's acquisitions.
    #[inline(always)]
    pub(crate) fn sampler(&self) -> Sampler {
        match self.kind {
            LockKind::Mutex => Sampler::Mutexes,
            LockKind::RwLock => Sampler::RwLocks,
        }
    }

    /// Counts a lock of type `raw_type` (`std::any::type_name`) as an instance of this
    /// site, at its first acquisition; the first instance puts the site in [`sites`].
    pub(crate) fn add_instance(&'static self, raw_type: &'static str) {
        // Under the sites lock, which the fork handlers take: no `fork()` copies the
        // process while the type name is being set (a child would wait for it forever).
        let mut sites = SITES.lock();
        // The profiler's work, not the program's: the name is made (and kept) once per
        // site, not per instance, and its allocations are not the caller's.
        hotpath_core::internal(|| {
            if self.type_name.get().is_none() {
                let _ = self.type_name.set(public_path(raw_type));
            }
            if self.instances.fetch_add(1, Relaxed) == 0 {
                sites.push(self);
            }
        });
    }
}

/// A mode of acquisition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Mode {
    /// Exclusive: a mutex's `lock`, a read-write lock's `write`.
    Write = 0,
    /// Shared: a read-write lock's `read`.
    Read = 1,
    /// Upgradable read (parking_lot, async-lock).
    Upgradable = 2,
}

static SITES: fork::Mutex<Vec<&'static LockSite>> =
    fork::Mutex::new(fork::Rank::LockSites, Vec::new());

/// Sites of the `hotpath::wrap` constructors, by source location (see `site_at`).
type Key = (&'static str, u32, u32, bool);
static BY_LOCATION: fork::Mutex<Option<std::collections::HashMap<Key, &'static LockSite>>> =
    fork::Mutex::new(fork::Rank::LockLocations, None);

/// Every lock site with a lock acquired so far, in order of first acquisition.
pub fn sites() -> Vec<&'static LockSite> {
    let sites = SITES.lock();
    hotpath_core::internal(|| sites.clone())
}

/// A lock type's name by the paths users write: `std::sync::Mutex<u64>` for
/// `std::sync::poison::mutex::Mutex<u64>`, `parking_lot::Mutex<T>` for
/// `lock_api::mutex::Mutex<parking_lot::raw_mutex::RawMutex, T>`. Once per site, as the
/// profiler's own work (the caller runs it under `hotpath_core::internal`).
fn public_path(raw: &'static str) -> &'static str {
    const PATHS: [(&str, &str); 10] = [
        ("std::sync::poison::mutex::", "std::sync::"),
        ("std::sync::poison::rwlock::", "std::sync::"),
        (
            "lock_api::mutex::Mutex<parking_lot::raw_mutex::RawMutex, ",
            "parking_lot::Mutex<",
        ),
        (
            "lock_api::rwlock::RwLock<parking_lot::raw_rwlock::RawRwLock, ",
            "parking_lot::RwLock<",
        ),
        ("tokio::sync::mutex::", "tokio::sync::"),
        ("tokio::sync::rwlock::", "tokio::sync::"),
        ("async_lock::mutex::", "async_lock::"),
        ("async_lock::rwlock::", "async_lock::"),
        ("alloc::vec::", ""),
        ("alloc::string::", ""),
    ];
    if !PATHS.iter().any(|(from, _)| raw.contains(from)) {
        return raw;
    }
    let mut s = raw.to_string();
    for (from, to) in PATHS {
        s = s.replace(from, to);
    }
    s.leak()
}

/// The site of a source location, made (and leaked) on first use.
pub(crate) fn site_at(
    loc: &'static std::panic::Location<'static>,
    kind: LockKind,
) -> &'static LockSite {
    let mut map = BY_LOCATION.lock();
    hotpath_core::internal(|| {
        let key = (
            loc.file(),
            loc.line(),
            loc.column(),
            kind == LockKind::RwLock,
        );
        *map.get_or_insert_with(Default::default)
            .entry(key)
            .or_insert_with(|| {
                let name: &'static str = format!("{}:{}", loc.file(), loc.line()).leak();
                Box::leak(Box::new(LockSite::new(
                    name,
                    None,
                    loc.file(),
                    loc.line(),
                    kind,
                )))
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::any::type_name;

    /// `public_path` of `T`'s name as this compiler spells it.
    fn public<T: ?Sized>() -> &'static str {
        public_path(type_name::<T>())
    }

    #[test]
    fn std_locks_read_as_std_sync() {
        assert_eq!(public::<std::sync::Mutex<u64>>(), "std::sync::Mutex<u64>");
        assert_eq!(public::<std::sync::RwLock<u64>>(), "std::sync::RwLock<u64>");
        assert_eq!(
            public::<std::sync::Mutex<Vec<String>>>(),
            "std::sync::Mutex<Vec<String>>"
        );
        assert_eq!(
            public::<std::sync::RwLock<std::sync::Mutex<u8>>>(),
            "std::sync::RwLock<std::sync::Mutex<u8>>"
        );
    }

    #[test]
    fn parking_lot_locks_read_without_lock_api() {
        assert_eq!(
            public::<parking_lot::Mutex<u64>>(),
            "parking_lot::Mutex<u64>"
        );
        assert_eq!(
            public::<parking_lot::RwLock<String>>(),
            "parking_lot::RwLock<String>"
        );
        assert_eq!(
            public::<parking_lot::Mutex<parking_lot::RwLock<u8>>>(),
            "parking_lot::Mutex<parking_lot::RwLock<u8>>"
        );
    }

    #[test]
    fn tokio_locks_read_as_tokio_sync() {
        assert_eq!(
            public::<tokio::sync::Mutex<u64>>(),
            "tokio::sync::Mutex<u64>"
        );
        assert_eq!(
            public::<tokio::sync::RwLock<Vec<u8>>>(),
            "tokio::sync::RwLock<Vec<u8>>"
        );
    }

    #[cfg(feature = "async-lock")]
    #[test]
    fn async_lock_locks_read_as_async_lock() {
        assert_eq!(public::<async_lock::Mutex<u64>>(), "async_lock::Mutex<u64>");
        assert_eq!(
            public::<async_lock::RwLock<String>>(),
            "async_lock::RwLock<String>"
        );
    }

    #[test]
    fn other_names_are_kept_as_they_are() {
        let raw = type_name::<(u64, &str)>();
        assert_eq!(raw, "(u64, &str)");
        // The same string, not a leaked copy.
        assert!(std::ptr::eq(public_path(raw), raw));
        assert_eq!(
            public::<std::cell::RefCell<u8>>(),
            "core::cell::RefCell<u8>"
        );
    }

    #[test]
    fn a_site_is_named_by_its_label_or_its_place() {
        static PLAIN: LockSite = LockSite::new("src/a.rs:7", None, "src/a.rs", 7, LockKind::Mutex);
        static LABELLED: LockSite =
            LockSite::new("src/a.rs:9", Some("cache"), "src/a.rs", 9, LockKind::RwLock);
        assert_eq!(PLAIN.name(), "src/a.rs:7");
        assert_eq!(
            (PLAIN.label(), PLAIN.file(), PLAIN.line()),
            (None, "src/a.rs", 7)
        );
        assert_eq!(LABELLED.name(), "cache");
        assert_eq!(LABELLED.label(), Some("cache"));
        // A label given at run time: a site of its own at the same place.
        let jobs = PLAIN.labelled("jobs");
        assert_eq!(
            (jobs.name(), jobs.line(), jobs.kind()),
            ("jobs".to_string(), 7, LockKind::Mutex)
        );
        assert!(std::ptr::eq(jobs, PLAIN.labelled("jobs")));
    }

    #[test]
    fn a_kind_samples_at_its_own_rate_and_each_mode_is_its_own_call_site() {
        static MUTEX: LockSite = LockSite::new("m:1", None, "m", 1, LockKind::Mutex);
        static RW: LockSite = LockSite::new("r:1", None, "r", 1, LockKind::RwLock);
        assert_eq!(MUTEX.sampler(), Sampler::Mutexes);
        assert_eq!(RW.sampler(), Sampler::RwLocks);
        let [w, r, u] = [Mode::Write, Mode::Read, Mode::Upgradable].map(|m| RW.mode(m));
        assert!(!std::ptr::eq(w, r) && !std::ptr::eq(r, u) && !std::ptr::eq(w, u));
        assert!(std::ptr::eq(w, RW.mode(Mode::Write)));
        assert_eq!(
            [Mode::Write as u8, Mode::Read as u8, Mode::Upgradable as u8],
            [0, 1, 2]
        );
    }

    #[test]
    fn backend_is_read_from_the_public_path() {
        static SITE: LockSite = LockSite::new("t:1", None, "t", 1, LockKind::Mutex);
        assert_eq!((SITE.type_name(), SITE.backend()), (None, None));
        SITE.add_instance(type_name::<parking_lot::Mutex<u8>>());
        assert_eq!(SITE.type_name(), Some("parking_lot::Mutex<u8>"));
        assert_eq!(SITE.backend(), Some("parking_lot"));
        assert_eq!(SITE.instances(), 1);
        assert!(sites().iter().any(|s| std::ptr::eq(*s, &SITE)));
    }
}
