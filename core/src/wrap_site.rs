//! Call sites of the wrapper macros that make entries at run time (`channel!`,
//! `stream!`, `io!`), and the registry of the entries they make: one per call site and
//! wrapped type (or per instance with `iter = true`), created on first use and never
//! freed. The flow and I/O meters each keep one [`Entries`] of their own entry type.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crate::fork::{Mutex, Rank};

/// One call site of a wrapper macro, a `static` per macro expansion.
#[derive(Debug)]
pub struct WrapSite {
    file: &'static str,
    line: u32,
    label: Option<&'static str>,
    iter: bool,
    /// With `iter`: instances created so far (for their names).
    created: AtomicU64,
}

impl WrapSite {
    /// A call site at `file:line`; `iter` gives every instance its own entry.
    pub const fn new(
        file: &'static str,
        line: u32,
        label: Option<&'static str>,
        iter: bool,
    ) -> Self {
        WrapSite {
            file,
            line,
            label,
            iter,
            created: AtomicU64::new(0),
        }
    }

    /// This call site with the label `label`, given at run time (`label = name`): a site
    /// of its own per distinct label, and past `HOTPATH_ENTRIES_LIMIT` labels one shared
    /// site labelled `<other>` ([`crate::labels`]). With `iter`, each label numbers
    /// its instances apart.
    pub fn labelled(&'static self, label: &str) -> &'static WrapSite {
        crate::labels::labelled(self, label, |label| {
            WrapSite::new(self.file, self.line, Some(label), self.iter)
        })
    }

    /// Source file of the macro.
    pub fn file(&self) -> &'static str {
        self.file
    }

    /// Source line of the macro.
    pub fn line(&self) -> u32 {
        self.line
    }

    /// The `label = ...` given.
    pub fn label(&self) -> Option<&'static str> {
        self.label
    }
}

struct Registry<E: 'static> {
    by_key: HashMap<(usize, &'static str), &'static E>,
    all: Vec<&'static E>,
}

/// The entries of one kind of wrapper (`E`): by call site and wrapped type, and all of
/// them in order of creation. Memory is bounded by call sites, not by instances.
pub struct Entries<E: 'static> {
    registry: Mutex<Option<Registry<E>>>,
}

impl<E: Send + Sync + 'static> Entries<E> {
    /// An empty registry whose lock has the rank `rank`.
    pub const fn new(rank: Rank) -> Self {
        Entries {
            registry: Mutex::new(rank, None),
        }
    }

    /// The entry of `site` for the wrapped type `type_name`, under [`crate::internal`]:
    /// an existing one, given to `reuse` (which counts the new instance), or the one
    /// `make` builds from its name (`label`, `file:line`, `label-2`, ..., see
    /// [`crate::entry_name`]). Called once per wrapper made, not per operation.
    pub fn entry(
        &'static self,
        site: &'static WrapSite,
        type_name: &'static str,
        reuse: impl FnOnce(&'static E),
        make: impl FnOnce(&'static str) -> E,
    ) -> &'static E {
        crate::internal(|| {
            let mut guard = self.registry.lock();
            let reg = guard.get_or_insert_with(|| Registry {
                by_key: HashMap::new(),
                all: Vec::new(),
            });
            // Instances share an entry per site and type; with `iter` each has its own, and
            // past the limit the rest share one more (keyed apart: a site is never at an odd
            // address), so memory is bounded by call sites, not by instances.
            let overflow = crate::iter_overflow(site.iter, site.created.load(Relaxed));
            let shared = !site.iter || overflow;
            let key = (
                site as *const WrapSite as usize + overflow as usize,
                type_name,
            );
            if shared {
                if let Some(e) = reg.by_key.get(&key) {
                    reuse(e);
                    return *e;
                }
            }
            let n = site.created.fetch_add(1, Relaxed) + 1;
            let name = crate::entry_name(site.label, site.file, site.line, site.iter, n);
            let name: &'static str = name.leak();
            let e: &'static E = Box::leak(Box::new(make(name)));
            if shared {
                reg.by_key.insert(key, e);
            }
            reg.all.push(e);
            e
        })
    }

    /// Every entry created so far, in order of creation.
    pub fn all(&'static self) -> Vec<&'static E> {
        let guard = self.registry.lock();
        crate::internal(|| guard.as_ref().map(|r| r.all.clone()).unwrap_or_default())
    }
}
