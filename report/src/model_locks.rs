//! The report's lock, waits and debug parts as data (sections `mutexes`, `rw_locks`,
//! `waits`, `debug`; see `docs/report-schema.md`).

use hotpath_macros::SerializeFields;
#[cfg(feature = "read")]
use serde::Deserialize;

use super::model_dist::LockDist;

/// Declares the row of a lock section: the call site's fields (`name` to `instances`,
/// `$mac` the macro and `$example` an example of the wrapped type), then `$rest`.
macro_rules! lock_site {
    ($(#[$attr:meta])* $T:ident, $mac:literal, $example:literal, { $($rest:tt)* }) => {
        $(#[$attr])*
        #[derive(Clone, Debug, PartialEq, SerializeFields)]
        #[cfg_attr(feature = "read", derive(Deserialize))]
        pub struct $T {
            #[doc = concat!("The label, or `file:line` of the `", $mac, "`.")]
            pub name: String,
            /// The `label = ...` given, or `null`.
            pub label: Option<String>,
            #[doc = concat!("Source file of the `", $mac, "`.")]
            pub file: String,
            /// Its line.
            pub line: u32,
            /// `std`, `parking_lot`, `tokio` or `async-lock`.
            pub backend: String,
            #[doc = concat!("The wrapped type, e.g. `", $example, "`.")]
            pub type_name: String,
            /// Locks made at this site that were acquired at least once.
            pub instances: u64,
            $($rest)*
        }
    };
}

lock_site!(
    /// One `mutex!` call site (and the type it wrapped): a row of the `mutexes` section.
    MutexEntry, "mutex!", "std::sync::Mutex<u64>", {
        /// Their acquisitions.
        #[serde(flatten)]
        pub lock: LockMode,
    }
);

lock_site!(
    /// One `rw_lock!` call site: a row of the `rw_locks` section, reads and writes apart.
    RwLockEntry, "rw_lock!", "std::sync::RwLock<Vec<u8>>", {
        /// Shared (read) acquisitions.
        pub read: LockMode,
        /// Exclusive (write) acquisitions.
        pub write: LockMode,
        /// Upgradable read acquisitions (parking_lot, async-lock); absent when none was made.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub upgradable: Option<LockMode>,
    }
);

impl RwLockEntry {
    /// The modes with their JSON names: `read`, `write`, and `upgradable` when present.
    pub fn modes(&self) -> Vec<(&'static str, &LockMode)> {
        let mut v = vec![("read", &self.read), ("write", &self.write)];
        if let Some(u) = &self.upgradable {
            v.push(("upgradable", u));
        }
        v
    }
}

/// The acquisitions of one lock site in one mode (a mutex's, or an rw-lock's reads,
/// writes or upgradable reads).
#[derive(Clone, Debug, Default, PartialEq, SerializeFields)]
#[cfg_attr(feature = "read", derive(Deserialize))]
pub struct LockMode {
    /// Acquisitions, counted when released; exact whatever the sampling rate.
    pub acquisitions: u64,
    /// Of those, the ones that found the lock taken and waited.
    pub contended: u64,
    /// `try_lock`-style attempts that failed because the lock was taken (not
    /// acquisitions).
    pub try_failed: u64,
    /// Acquisitions whose wait and hold were timed (`acquisitions` unless sampling): the
    /// size of the sample `wait_ns` and `hold_ns` describe.
    pub timed: u64,
    /// Whether the `min`, `max` and percentiles of `wait_ns` and `hold_ns` are taken over
    /// a sample: the `timed` acquisitions, fewer than `acquisitions`. A longer hold may
    /// then have gone untimed, but not one that made another acquisition wait (those are
    /// always timed), and every nonzero wait is timed. Absent before schema version 7:
    /// read as `timed < acquisitions`.
    #[serde(default)]
    pub sampled: bool,
    /// Condition-variable waits made while holding (each ends one hold; the wait itself
    /// is neither wait nor hold here, and is charged to the function as lock waiting).
    pub condvar_waits: u64,
    /// Wait before each timed acquisition (0 for an uncontended one); `null` when none
    /// was timed.
    pub wait_ns: Option<LockDist>,
    /// How long each timed acquisition held the lock; `null` when none was timed.
    pub hold_ns: Option<LockDist>,
    /// Every function that acquired, by hold, then wait, then acquisitions; then
    /// `<other>` for the acquisitions no function was found for.
    pub holders: Vec<LockHolder>,
}

/// The acquisitions one function made on one lock site in one mode.
#[derive(Clone, Debug, Default, PartialEq, SerializeFields)]
#[cfg_attr(feature = "read", derive(Deserialize))]
pub struct LockHolder {
    /// The innermost measured function when the lock was acquired (its label, else its
    /// path); `(no measured function)` for acquisitions outside every measured function;
    /// `<other>` for the functions not listed (and pairs past a thread's table).
    pub function: String,
    /// Acquisitions.
    pub acquisitions: u64,
    /// Of those, contended.
    pub contended: u64,
    /// Time the timed ones waited, ns (not scaled when sampling).
    pub wait_ns: u64,
    /// Time the timed ones held the lock, ns (not scaled when sampling).
    pub hold_ns: u64,
}

/// Where one function's own time went (section `waits`): its wall time less the time of
/// its measured children, split into computing and each kind of waiting the wrappers
/// timed while it was the innermost measured function.
#[derive(Clone, Debug, Default, PartialEq, SerializeFields)]
#[cfg_attr(feature = "read", derive(Deserialize))]
pub struct FunctionWaits {
    /// Own time: `wall_ns.total` minus the inclusive time of measured children (sync:
    /// `wall_ns.self`; async: first poll to `Ready` minus the children's time inside its
    /// polls and minus its suspension in measured child futures awaited to completion).
    pub own_ns: u64,
    /// CPU time not spent in measured children (`cpu.self_cpu_ns`); `null` without the
    /// `cpu` section.
    pub cpu_ns: Option<u64>,
    /// Inside `io!` operations.
    pub io_ns: u64,
    /// Waiting for locks (and condition variables of measured mutexes).
    pub lock_ns: u64,
    /// Waiting to send on full channels.
    pub channel_send_ns: u64,
    /// Waiting to receive from empty channels.
    pub channel_recv_ns: u64,
    /// In SQL queries.
    pub sql_ns: u64,
    /// In HTTP requests.
    pub http_ns: u64,
    /// The rest: `own_ns` minus all of the above, at least 0 (computing when `cpu_ns`
    /// is null; waiting on anything not wrapped, sleeping, being preempted otherwise).
    pub other_ns: u64,
}

impl FunctionWaits {
    /// Every wait kind with its column title, in the order of the schema.
    pub fn kinds(&self) -> [(&'static str, u64); 6] {
        [
            ("I/O", self.io_ns),
            ("Lock", self.lock_ns),
            ("Chan send", self.channel_send_ns),
            ("Chan recv", self.channel_recv_ns),
            ("SQL", self.sql_ns),
            ("HTTP", self.http_ns),
        ]
    }

    /// The sum of the waits.
    pub fn waited_ns(&self) -> u64 {
        self.kinds().iter().map(|(_, v)| v).sum()
    }
}

/// One debug value (section `debug`).
#[derive(Clone, Debug, PartialEq, SerializeFields)]
#[cfg_attr(feature = "read", derive(Deserialize))]
pub struct DebugEntry {
    /// `dbg`, `val` or `gauge`.
    pub kind: String,
    /// The expression of a `dbg!`, the key of a `val!` or `gauge!`.
    pub key: String,
    /// The last value: `Debug` text (truncated to 256 bytes, with `…`), or a gauge's
    /// number as text.
    pub value: String,
    /// A gauge's value as a number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gauge: Option<f64>,
    /// Updates (evaluations of the `dbg!`, `set`, `inc`, `dec`).
    pub updates: u64,
    /// Source file of the last update.
    pub file: String,
    /// Its line.
    pub line: u32,
}
