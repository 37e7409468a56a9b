//! Holders: per thread, which measured function made the operations of which wrapped
//! site (a lock's acquisitions, with their waits and holds), so that a report can name
//! the functions that waited and held longest.
//!
//! Each thread has one table of (operation site, function site) pairs, allocated on its
//! first use and freed when the thread exits (with its shard's slots), written by that
//! thread only (single writer, relaxed load
//! and store) and merged by snapshots like the slots. The table is bounded: [`HOLDERS`]
//! pairs per thread, found by open addressing within [`PROBES`] steps. An operation whose
//! pair finds no place is still counted in its site's slot, so a report shows it as the
//! difference between the site's totals and its attributed holders (`<other>`).

use std::collections::HashMap;

use crate::cell::Cnt;

/// Most (site, function) pairs one thread attributes.
pub const HOLDERS: usize = 256;
/// Places a pair may take from its hash: beyond, it is not attributed.
const PROBES: usize = 32;

/// One (operation site, function) pair's numbers on one thread, durations in ticks.
#[derive(Debug)]
pub struct Holder {
    /// `site << 32 | function`; 0 while the entry is free.
    key: Cnt,
    /// Operations (lock acquisitions).
    pub ops: Cnt,
    /// Of those, operations that had to wait (contended acquisitions).
    pub contended: Cnt,
    /// Ticks waited by the timed ones.
    pub wait: Cnt,
    /// Ticks held by the timed ones.
    pub hold: Cnt,
}

impl Holder {
    const fn new() -> Self {
        Holder {
            key: Cnt::new(),
            ops: Cnt::new(),
            contended: Cnt::new(),
            wait: Cnt::new(),
            hold: Cnt::new(),
        }
    }
}

/// One thread's pairs.
pub(crate) struct HolderTable {
    entries: [Holder; HOLDERS],
}

impl HolderTable {
    pub(crate) fn boxed() -> Box<Self> {
        Box::new(HolderTable {
            entries: [const { Holder::new() }; HOLDERS],
        })
    }

    /// The entry of `site` (a non-zero site id) and `function` (0: outside every
    /// measured function), taking a free one on first use; `None` when the pair finds no
    /// place. Only the owning thread may call this.
    #[inline(always)]
    pub(crate) fn entry(&self, site: u32, function: u32) -> Option<&Holder> {
        let key = (u64::from(site) << 32) | u64::from(function);
        let first = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as usize;
        for i in first..first + PROBES {
            let e = &self.entries[i % HOLDERS];
            let k = e.key.get();
            if k == key {
                return Some(e);
            }
            if k == 0 {
                e.key.set(key);
                return Some(e);
            }
        }
        None
    }

    /// Forgets every pair. Only the owning thread may call this.
    pub(crate) fn clear(&self) {
        for e in &self.entries {
            e.key.set(0);
            e.ops.set(0);
            e.contended.set(0);
            e.wait.set(0);
            e.hold.set(0);
        }
    }

    /// Adds this table's pairs to `out`.
    pub(crate) fn merge_into(&self, out: &mut HolderMap) {
        for e in &self.entries {
            let k = e.key.get();
            if k == 0 {
                continue;
            }
            let m = out.entry(((k >> 32) as u32, k as u32)).or_default();
            m.ops += e.ops.get();
            m.contended += e.contended.get();
            m.wait += e.wait.get();
            m.hold += e.hold.get();
        }
    }
}

/// One pair's numbers merged over threads, ticks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct HolderMerged {
    pub(crate) ops: u64,
    pub(crate) contended: u64,
    pub(crate) wait: u64,
    pub(crate) hold: u64,
}

/// Merged pairs by (site id, function id).
pub(crate) type HolderMap = HashMap<(u32, u32), HolderMerged>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_get_one_entry_each_until_the_table_is_full() {
        let t = HolderTable::boxed();
        let a = t.entry(1, 0).unwrap();
        a.ops.add(2);
        assert!(std::ptr::eq(a, t.entry(1, 0).unwrap()));
        assert!(!std::ptr::eq(a, t.entry(1, 7).unwrap()));
        assert!(!std::ptr::eq(a, t.entry(2, 0).unwrap()));
        let mut placed = 3;
        for f in 1..2 * HOLDERS as u32 {
            if t.entry(9, f).is_some() {
                placed += 1;
            }
        }
        assert!(placed <= HOLDERS, "{placed}");
        assert!(placed > HOLDERS / 2, "{placed}");
        let mut m = HolderMap::new();
        t.merge_into(&mut m);
        assert_eq!(m.len(), placed);
        assert_eq!(m[&(1, 0)].ops, 2);
        t.clear();
        let mut m = HolderMap::new();
        t.merge_into(&mut m);
        assert!(m.is_empty());
    }
}
