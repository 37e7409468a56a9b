//! Labels given at run time: `label = <expression>` on `channel!`, `stream!`, `future!`,
//! `io!`, `mutex!` and `rw_lock!`.
//!
//! A literal label is part of the macro's `static` site and costs nothing here. An
//! expression's value is looked up once per wrap (a channel, stream, I/O value or lock
//! made, a future called) in a table of the site's labels, and gets a site of its own,
//! made on first use and never freed, which the wrapper then uses as it would the
//! `static` one. A site keeps at most [`entries_limit`] distinct labels (its
//! `HOTPATH_ENTRIES_LIMIT`); every later label shares one more site, labelled
//! [`OVERFLOW_LABEL`], so memory is bounded by call sites × that limit, whatever the
//! labels a program makes.
//!
//! The table is the profiler's: looking up and interning run under [`internal`], so
//! their allocations are charged to no function (evaluating the label expression is the
//! program's own work, and is charged as such).

use std::any::{Any, TypeId};
use std::collections::HashMap;

use crate::fork::{Rank, RwLock};
use crate::{entries_limit, internal};

/// The label of the site that the labels of a call site past [`entries_limit`] share.
pub const OVERFLOW_LABEL: &str = "<other>";

type Labelled = &'static (dyn Any + Send + Sync);

/// The labels of one call site and their sites.
#[derive(Default)]
struct Labels {
    by_label: HashMap<&'static str, Labelled>,
    overflow: Option<Labelled>,
}

impl Labels {
    /// The site of `label` when it has one, or the overflow's when the site is full
    /// (made on first use when `make` is given).
    fn find(&self, label: &str) -> Option<Labelled> {
        match self.by_label.get(label) {
            Some(s) => Some(*s),
            None if self.by_label.len() >= entries_limit() => self.overflow,
            None => None,
        }
    }
}

/// By call site: its address and type (sites of one type never share an address).
type Key = (usize, TypeId);

static REGISTRY: RwLock<Option<HashMap<Key, Labels>>> = RwLock::new(Rank::Labels, None);

/// The site of `label` at the call site `site`: the one `make(label)` made the first
/// time this label was given there, or, past [`entries_limit`] distinct labels at that
/// call site, the one `make(OVERFLOW_LABEL)` made for all the later ones. `make` gets a
/// copy of the label that lives as long as the program.
///
/// A read lock and a hash lookup when the label was seen; under [`internal`].
pub fn labelled<S: Any + Send + Sync>(
    site: &'static S,
    label: &str,
    make: impl FnOnce(&'static str) -> S,
) -> &'static S {
    let key: Key = (site as *const S as usize, TypeId::of::<S>());
    let found = internal(|| {
        if let Some(s) = REGISTRY
            .read()
            .as_ref()
            .and_then(|m| m.get(&key))
            .and_then(|l| l.find(label))
        {
            return s;
        }
        let mut guard = REGISTRY.write();
        let labels = guard
            .get_or_insert_with(HashMap::new)
            .entry(key)
            .or_default();
        // Another thread may have made it between the two locks.
        if let Some(s) = labels.find(label) {
            return s;
        }
        if labels.by_label.len() >= entries_limit() {
            let s: Labelled = Box::leak(Box::new(make(OVERFLOW_LABEL)));
            labels.overflow = Some(s);
            return s;
        }
        let label: &'static str = Box::leak(Box::from(label));
        let s: Labelled = Box::leak(Box::new(make(label)));
        labels.by_label.insert(label, s);
        s
    });
    found
        .downcast_ref::<S>()
        .expect("a call site's labels are sites of its type")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Site(&'static str);

    #[test]
    fn a_label_gets_one_site_per_call_site() {
        static A: Site = Site("a");
        static B: Site = Site("b");
        let one = labelled(&A, "x", Site);
        let label = String::from("x");
        assert!(std::ptr::eq(one, labelled(&A, &label, Site)));
        assert_eq!(one.0, "x");
        assert!(!std::ptr::eq(one, &A));
        // Another call site, another site for the same label.
        assert!(!std::ptr::eq(one, labelled(&B, "x", Site)));
        assert!(!std::ptr::eq(one, labelled(&A, "y", Site)));
    }

    #[test]
    fn labels_past_the_limit_share_the_overflow_site() {
        static C: Site = Site("c");
        let limit = entries_limit();
        let first: Vec<&Site> = (0..limit)
            .map(|i| labelled(&C, &format!("l{i}"), Site))
            .collect();
        let other = labelled(&C, "late", Site);
        assert_eq!(other.0, OVERFLOW_LABEL);
        assert!(std::ptr::eq(other, labelled(&C, "later", Site)));
        // The labels seen before the limit keep their sites.
        assert!(std::ptr::eq(first[0], labelled(&C, "l0", Site)));
        assert_eq!(first[limit - 1].0, format!("l{}", limit - 1));
    }
}
