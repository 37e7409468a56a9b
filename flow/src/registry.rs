//! The entries the report shows: one per `channel!` or `stream!` call site and the type it
//! carries (or per instance with `iter = true`), created on first use and never freed.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use hotpath_core::fork::Rank;
use hotpath_core::wrap_site::{Entries, WrapSite};
use hotpath_core::{CallSite, SiteKind};

/// One `channel!` or `stream!` call site: a `static` per macro expansion.
pub type FlowSite = WrapSite;

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

static REGISTRY: Entries<Entry> = Entries::new(Rank::FlowEntries);

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
    REGISTRY.entry(
        site,
        type_name,
        |e| {
            e.instances.fetch_add(1, Relaxed);
            if cap != u64::MAX {
                let old = e.capacity.load(Relaxed);
                if old == u64::MAX || old < cap {
                    e.capacity.store(cap, Relaxed);
                }
            }
        },
        |name| {
            let site_kind = match what {
                What::Channel => SiteKind::Channel,
                What::Stream => SiteKind::Stream,
            };
            let call_site: &'static CallSite = Box::leak(Box::new(CallSite::named(
                name,
                site.label(),
                site.file(),
                site.line(),
                site_kind,
            )));
            Entry {
                what,
                name,
                label: site.label(),
                file: site.file(),
                line: site.line(),
                type_name,
                backend,
                kind,
                capacity: AtomicU64::new(cap),
                instances: AtomicU64::new(1),
                site: call_site,
            }
        },
    )
}

/// Every entry created so far, in order of creation.
pub fn entries() -> Vec<&'static Entry> {
    REGISTRY.all()
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
