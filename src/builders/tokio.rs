//! `tokio`: the runtimes registered with `tokio_runtime!`; absent when none was (a call
//! outside a runtime leaves a note instead).

use crate::report::Report;

/// The registered runtimes and the notes about them.
pub(super) fn build(r: &mut Report, notes: &mut Vec<String>) -> bool {
    #[cfg(feature = "tokio")]
    {
        let (runtimes, n) = crate::tokio_rt::report();
        notes.extend(n);
        if runtimes.is_empty() {
            return false;
        }
        r.tokio = Some(runtimes);
        true
    }
    #[cfg(not(feature = "tokio"))]
    {
        let _ = (r, notes);
        false
    }
}
