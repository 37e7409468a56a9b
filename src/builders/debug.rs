//! `debug`: the last values of `dbg!`, `val!` and `gauge!`.

use crate::report::Report;

/// Every debug value updated so far, in order of first use; absent when none.
pub(super) fn build(r: &mut Report, notes: &mut Vec<String>) -> bool {
    let (entries, dropped) = crate::debug::entries();
    if dropped > 0 {
        notes.push(format!(
            "{dropped} updates of debug values past the first {} sites and keys were not kept",
            crate::debug::MAX_ENTRIES
        ));
    }
    if entries.is_empty() {
        return false;
    }
    r.debug = Some(entries);
    true
}
