//! Reading an entry's numbers back from a snapshot.
#![allow(dead_code)]

use hotpath_core::{snapshot, CallSite};
use hotpath_io::IoEntry;

/// (ops, bytes, errors, timed ops) of one direction.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
pub struct Dir {
    pub ops: u64,
    pub bytes: u64,
    pub errors: u64,
    pub timed: u64,
}

pub fn dir(site: &'static CallSite) -> Dir {
    snapshot()
        .sites
        .iter()
        .find(|s| std::ptr::eq(s.site, site))
        .map(|s| Dir {
            ops: s.calls,
            bytes: s.io_bytes,
            errors: s.io_errors,
            timed: s.timed,
        })
        .unwrap_or(Dir {
            ops: 0,
            bytes: 0,
            errors: 0,
            timed: 0,
        })
}

/// (ops, bytes, errors) of one direction.
pub fn obe(site: &'static CallSite) -> (u64, u64, u64) {
    let d = dir(site);
    (d.ops, d.bytes, d.errors)
}

pub fn entry_named(name: &str) -> &'static IoEntry {
    hotpath_io::entries()
        .into_iter()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("no entry {name}"))
}

pub fn temp(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("hotpath-io-{}-{name}", std::process::id()))
}
