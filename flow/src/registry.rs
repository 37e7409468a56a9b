//! The entries the report shows: one per `channel!` or `stream!` call site and the type it
//! carries (or per instance with `iter = true`), created on first use and never freed.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use hotpath_core::fork::{Mutex, Rank};

use hotpath_core::{CallSite, SiteKind};

/// One `channel!` or `stream!` call site: a `static` per macro expansion.
#[derive(Debug)]
pub struct FlowSite {
    pub(crate) file: &'static str,
    pub(crate) line: u32,
    label: Option<&'static str>,
    iter: bool,
    /// With `iter`: instances created so far (for their names).
    created: AtomicU64,
}

impl FlowSite {
    /// A call site at `file:line`; `iter` gives every instance its own entry.
    pub const fn new(
        file: &'static str,
        line: u32,
        label: Option<&'static str>,
        iter: bool,
    ) -> Self {
        FlowSite {
            file,
            line,
            label,
            iter,
            created: AtomicU64::new(0),
        }
    }

    /// This call site with the label `label`, given at run time (`label = name`): a site
    /// of its own per distinct label, and past `HOTPATH_ENTRIES_LIMIT` labels one shared
    /// site labelled `<other>` (`hotpath_core::labels`). With `iter`, each label numbers
    /// its instances apart.
    pub fn labelled(&'static self, label: &str) -> &'static FlowSite {
        hotpath_core::labels::labelled(self, label, |label| {
            FlowSite::new(self.file, self.line, Some(label), self.iter)
        })
    }
}

/// What an entry counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum What {
    /// A channel.
    Channel,
    /// A stream.
    Stream,
}

/// What the report shows as one row: a `channel!` or `stream!` call site and the type
/// it carries (or, with `iter = true`, one instance).
#[derive(Debug)]
pub struct Entry {
    /// Channel or stream.
    pub what: What,
    /// The label, or `file:line`; `label-2`, `label-3`, ... for later `iter` instances.
    pub name: &'static str,
    /// The `label = "..."` given.
    pub label: Option<&'static str>,
    /// Source file of the macro.
    pub file: &'static str,
    /// Source line of the macro.
    pub line: u32,
    /// `std::any::type_name` of the message or item.
    pub type_name: &'static str,
    /// Channels: `std`, `crossbeam`, `flume`, `async-channel`, `tokio` or `futures`.
    pub backend: &'static str,
    /// Channels: `bounded`, `unbounded`, `rendezvous`, `oneshot`, `broadcast` or `watch`.
    pub kind: &'static str,
    /// Channels: the largest capacity of its instances; `u64::MAX` when unbounded.
    pub capacity: AtomicU64,
    /// Instances created for this entry.
    pub instances: AtomicU64,
    /// Where its numbers are recorded, per thread.
    pub site: &'static CallSite,
}

struct Registry {
    by_key: HashMap<(usize, &'static str), &'static Entry>,
    all: Vec<&'static Entry>,
}

static REGISTRY: Mutex<Option<Registry>> = Mutex::new(Rank::FlowEntries, None);

/// The entry of `site` for `T`, created on first use, with one more instance. Called
/// once per channel or stream created, not per message.
pub(crate) fn entry<T>(
    site: &'static FlowSite,
    what: What,
    backend: &'static str,
    kind: &'static str,
    capacity: Option<usize>,
) -> &'static Entry {
    let type_name = std::any::type_name::<T>();
    let cap = capacity.map_or(u64::MAX, |c| c as u64);
    hotpath_core::internal(|| {
        let mut guard = REGISTRY.lock();
        let reg = guard.get_or_insert_with(|| Registry {
            by_key: HashMap::new(),
            all: Vec::new(),
        });
        // Instances share an entry per site and type; with `iter` each has its own, and
        // past the limit the rest share one more (keyed apart: a site is never at an odd
        // address), so memory is bounded by call sites, not by instances.
        let overflow = hotpath_core::iter_overflow(site.iter, site.created.load(Relaxed));
        let shared = !site.iter || overflow;
        let key = (
            site as *const FlowSite as usize + overflow as usize,
            type_name,
        );
        if shared {
            if let Some(e) = reg.by_key.get(&key) {
                e.instances.fetch_add(1, Relaxed);
                if cap != u64::MAX {
                    let old = e.capacity.load(Relaxed);
                    if old == u64::MAX || old < cap {
                        e.capacity.store(cap, Relaxed);
                    }
                }
                return *e;
            }
        }
        let n = site.created.fetch_add(1, Relaxed) + 1;
        let name = hotpath_core::entry_name(site.label, site.file, site.line, site.iter, n);
        let name: &'static str = name.leak();
        let site_kind = match what {
            What::Channel => SiteKind::Channel,
            What::Stream => SiteKind::Stream,
        };
        let call_site: &'static CallSite = Box::leak(Box::new(CallSite::dynamic(
            name, site.label, site.file, site.line, site_kind,
        )));
        let e: &'static Entry = Box::leak(Box::new(Entry {
            what,
            name,
            label: site.label,
            file: site.file,
            line: site.line,
            type_name,
            backend,
            kind,
            capacity: AtomicU64::new(cap),
            instances: AtomicU64::new(1),
            site: call_site,
        }));
        if shared {
            reg.by_key.insert(key, e);
        }
        reg.all.push(e);
        e
    })
}

/// Every entry created so far, in order of creation.
pub fn entries() -> Vec<&'static Entry> {
    let guard = REGISTRY.lock();
    hotpath_core::internal(|| guard.as_ref().map(|r| r.all.clone()).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn channel<T>(site: &'static FlowSite, capacity: Option<usize>) -> &'static Entry {
        entry::<T>(site, What::Channel, "std", "bounded", capacity)
    }

    #[test]
    fn an_entry_is_named_by_its_label_or_its_place() {
        static LABELLED: FlowSite = FlowSite::new("src/a.rs", 3, Some("jobs"), false);
        static PLAIN: FlowSite = FlowSite::new("src/a.rs", 4, None, false);
        let e = channel::<u64>(&LABELLED, Some(8));
        assert_eq!(
            (e.name, e.label, e.file, e.line),
            ("jobs", Some("jobs"), "src/a.rs", 3)
        );
        assert_eq!(
            (e.what, e.backend, e.kind),
            (What::Channel, "std", "bounded")
        );
        assert_eq!(e.type_name, "u64");
        assert_eq!(channel::<u64>(&PLAIN, None).name, "src/a.rs:4");
        let s = entry::<u8>(&PLAIN, What::Stream, "", "", None);
        assert_eq!((s.name, s.what), ("src/a.rs:4", What::Stream));
    }

    #[test]
    fn instances_of_one_site_and_type_share_an_entry() {
        static SITE: FlowSite = FlowSite::new("src/b.rs", 1, None, false);
        let first = channel::<u64>(&SITE, Some(4));
        let second = channel::<u64>(&SITE, Some(16));
        assert!(std::ptr::eq(first, second));
        assert_eq!(first.instances.load(Relaxed), 2);
        // The largest capacity of the instances; an unbounded one does not lower it.
        assert_eq!(first.capacity.load(Relaxed), 16);
        channel::<u64>(&SITE, Some(2));
        channel::<u64>(&SITE, None);
        assert_eq!(first.capacity.load(Relaxed), 16);
        assert_eq!(first.instances.load(Relaxed), 4);
        // Another message type is another entry.
        let other = channel::<String>(&SITE, None);
        assert!(!std::ptr::eq(first, other));
        assert_eq!(other.capacity.load(Relaxed), u64::MAX);
    }

    #[test]
    fn iter_instances_past_the_entries_limit_share_one_entry() {
        static SITE: FlowSite = FlowSite::new("src/d.rs", 2, Some("conn"), true);
        let limit = hotpath_core::entries_limit();
        let made = limit + 4_000;
        let last: Vec<&'static Entry> = (0..made).map(|_| channel::<u8>(&SITE, None)).collect();
        let of_site: Vec<&Entry> = entries()
            .into_iter()
            .filter(|e| e.name.starts_with("conn"))
            .collect();
        // One entry per instance up to the limit, then one for all the others.
        assert_eq!(of_site.len(), limit + 1);
        let overflow = last[made - 1];
        assert_eq!(overflow.name, "conn-<other>");
        assert!(std::ptr::eq(overflow, last[limit]));
        assert_eq!(overflow.instances.load(Relaxed), 4_000);
        assert_eq!(last[limit - 1].name, format!("conn-{limit}"));
    }

    #[test]
    fn with_iter_every_instance_is_an_entry_numbered_after_the_first() {
        static SITE: FlowSite = FlowSite::new("src/c.rs", 9, Some("worker"), true);
        let names: Vec<_> = (0..3).map(|_| channel::<u64>(&SITE, None).name).collect();
        assert_eq!(names, ["worker", "worker-2", "worker-3"]);
        let all = entries();
        for name in names {
            let n = all.iter().filter(|e| e.name == name).count();
            assert_eq!(n, 1, "{name} is listed once");
        }
    }
}
