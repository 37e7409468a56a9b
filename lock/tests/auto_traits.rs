//! Every measured lock and guard is `Send`, `Sync`, `Unpin`, `UnwindSafe` and
//! `RefUnwindSafe` exactly when the raw lock or guard is, for data that is `Send` and
//! `Sync` (`u8`), `Send` only (`Cell<u8>`) and neither (`Rc<u8>`).
#![allow(clippy::type_complexity)]

use std::cell::Cell;
use std::marker::PhantomData;
use std::panic::{RefUnwindSafe, UnwindSafe};
use std::rc::Rc;

use hotpath_lock::Lock;

/// Asks a concrete type which auto traits it has: the inherent method (bounded) wins
/// over the trait's default when the bound holds.
struct Probe<T: ?Sized>(PhantomData<T>);

macro_rules! probe_trait {
    ($tr:ident, $bound:path, $m:ident) => {
        trait $tr {
            fn $m(&self) -> bool {
                false
            }
        }
        impl<T: ?Sized> $tr for Probe<T> {}
        impl<T: ?Sized + $bound> Probe<T> {
            #[allow(dead_code)]
            fn $m(&self) -> bool {
                true
            }
        }
    };
}
probe_trait!(NoSend, Send, send);
probe_trait!(NoSync, Sync, sync);
probe_trait!(NoUnpin, Unpin, unpin);
probe_trait!(NoUnwind, UnwindSafe, unwind);
probe_trait!(NoRefUnwind, RefUnwindSafe, ref_unwind);

macro_rules! traits {
    ($t:ty) => {{
        let p = Probe::<$t>(PhantomData);
        [p.send(), p.sync(), p.unpin(), p.unwind(), p.ref_unwind()]
    }};
}

/// The raw and the measured type have the same auto traits, for each kind of data.
macro_rules! same {
    ($raw:ident, $ours:ident) => {{
        same!(@ $raw, $ours, u8);
        same!(@ $raw, $ours, Cell<u8>);
        same!(@ $raw, $ours, Rc<u8>);
    }};
    (@ $raw:ident, $ours:ident, $d:ty) => {
        assert_eq!(
            traits!($raw<$d>),
            traits!($ours<$d>),
            "{} vs {}",
            stringify!($raw<$d>),
            stringify!($ours<$d>)
        );
    };
}

type StdMutex<T> = std::sync::Mutex<T>;
type OurStdMutex<T> = Lock<std::sync::Mutex<T>>;
type StdRwLock<T> = std::sync::RwLock<T>;
type OurStdRwLock<T> = Lock<std::sync::RwLock<T>>;
type StdMutexGuard<T> = std::sync::MutexGuard<'static, T>;
type OurStdMutexGuard<T> = hotpath_lock::std_sync::MutexGuard<'static, T>;
type StdReadGuard<T> = std::sync::RwLockReadGuard<'static, T>;
type OurStdReadGuard<T> = hotpath_lock::std_sync::RwLockReadGuard<'static, T>;
type StdWriteGuard<T> = std::sync::RwLockWriteGuard<'static, T>;
type OurStdWriteGuard<T> = hotpath_lock::std_sync::RwLockWriteGuard<'static, T>;

#[test]
fn the_probe_tells_traits_apart() {
    assert_eq!(traits!(u8), [true; 5]);
    assert_eq!(traits!(Rc<u8>)[..2], [false, false]);
    assert_eq!(traits!(Cell<u8>)[..2], [true, false]);
    assert!(!traits!(std::marker::PhantomPinned)[2]);
    assert!(!traits!(&mut u8)[3]);
}

#[test]
fn std_locks_and_guards() {
    same!(StdMutex, OurStdMutex);
    same!(StdRwLock, OurStdRwLock);
    same!(StdMutexGuard, OurStdMutexGuard);
    same!(StdReadGuard, OurStdReadGuard);
    same!(StdWriteGuard, OurStdWriteGuard);
    assert_eq!(
        traits!(std::sync::Condvar),
        traits!(hotpath_lock::std_sync::Condvar)
    );
}

#[cfg(feature = "parking_lot")]
mod parking_lot_types {
    use super::*;
    pub type PMutex<T> = parking_lot::Mutex<T>;
    pub type OurPMutex<T> = Lock<parking_lot::Mutex<T>>;
    pub type PRwLock<T> = parking_lot::RwLock<T>;
    pub type OurPRwLock<T> = Lock<parking_lot::RwLock<T>>;
    pub type PGuard<T> = parking_lot::MutexGuard<'static, T>;
    pub type OurPGuard<T> = hotpath_lock::parking_lot::MutexGuard<'static, T>;
    pub type PUpg<T> = parking_lot::RwLockUpgradableReadGuard<'static, T>;
    pub type OurPUpg<T> = hotpath_lock::parking_lot::RwLockUpgradableReadGuard<'static, T>;
    pub type PArc<T> = parking_lot::ArcMutexGuard<parking_lot::RawMutex, T>;
    pub type OurPArc<T> = hotpath_lock::parking_lot::ArcMutexGuard<T>;
    pub type PArcUpg<T> = parking_lot::ArcRwLockUpgradableReadGuard<parking_lot::RawRwLock, T>;
    pub type OurPArcUpg<T> = hotpath_lock::parking_lot::ArcRwLockUpgradableReadGuard<T>;
    /// Data that is `Sync` but not `Send`.
    pub type SyncOnly = std::sync::MutexGuard<'static, u8>;

    #[test]
    fn parking_lot_locks_and_guards() {
        same!(PMutex, OurPMutex);
        same!(PRwLock, OurPRwLock);
        same!(PGuard, OurPGuard);
        same!(PUpg, OurPUpg);
        // lock_api's arc guard is Unpin and unwind-safe by its own rules: compare
        // Send and Sync, what moving it between threads depends on.
        for (a, b) in [
            (traits!(PArc<u8>), traits!(OurPArc<u8>)),
            (traits!(PArc<Cell<u8>>), traits!(OurPArc<Cell<u8>>)),
            (traits!(PArc<Rc<u8>>), traits!(OurPArc<Rc<u8>>)),
            (traits!(PArcUpg<u8>), traits!(OurPArcUpg<u8>)),
            (traits!(PArcUpg<Cell<u8>>), traits!(OurPArcUpg<Cell<u8>>)),
            (traits!(PArcUpg<Rc<u8>>), traits!(OurPArcUpg<Rc<u8>>)),
        ] {
            assert_eq!(a[..2], b[..2]);
        }
        // The one difference, deliberate: a borrowing guard that names its lock
        // (`MutexGuard::mutex`) keeps a `&Lock`, so it is `Sync` only when the lock is,
        // that is when the data is `Send` too. lock_api's guard is `Sync` for `Sync` data
        // alone, and its `mutex` then hands another thread a `&Mutex` of data that must
        // not move there.
        assert!(traits!(PGuard<SyncOnly>)[1]);
        assert!(!traits!(OurPGuard<SyncOnly>)[1]);
        assert_eq!(
            traits!(PGuard<SyncOnly>)[0],
            traits!(OurPGuard<SyncOnly>)[0]
        );
    }
}

#[cfg(feature = "tokio")]
mod tokio_types {
    use super::*;
    pub type TMutex<T> = tokio::sync::Mutex<T>;
    pub type OurTMutex<T> = Lock<tokio::sync::Mutex<T>>;
    pub type TRwLock<T> = tokio::sync::RwLock<T>;
    pub type OurTRwLock<T> = Lock<tokio::sync::RwLock<T>>;
    pub type TGuard<T> = tokio::sync::MutexGuard<'static, T>;
    pub type OurTGuard<T> = hotpath_lock::tokio::MutexGuard<'static, T>;
    pub type TOwned<T> = tokio::sync::OwnedMutexGuard<T>;
    pub type OurTOwned<T> = hotpath_lock::tokio::OwnedMutexGuard<T>;
    pub type TRead<T> = tokio::sync::RwLockReadGuard<'static, T>;
    pub type OurTRead<T> = hotpath_lock::tokio::RwLockReadGuard<'static, T>;
    pub type TOwnedMapped<T> = tokio::sync::OwnedMappedMutexGuard<T>;
    pub type OurTOwnedMapped<T> = hotpath_lock::tokio::OwnedMappedMutexGuard<T>;

    #[test]
    fn tokio_locks_and_guards() {
        same!(TMutex, OurTMutex);
        same!(TRwLock, OurTRwLock);
        same!(TGuard, OurTGuard);
        same!(TRead, OurTRead);
        for (a, b) in [
            (traits!(TOwned<u8>), traits!(OurTOwned<u8>)),
            (traits!(TOwned<Cell<u8>>), traits!(OurTOwned<Cell<u8>>)),
            (traits!(TOwned<Rc<u8>>), traits!(OurTOwned<Rc<u8>>)),
            (traits!(TOwnedMapped<u8>), traits!(OurTOwnedMapped<u8>)),
            (
                traits!(TOwnedMapped<Cell<u8>>),
                traits!(OurTOwnedMapped<Cell<u8>>),
            ),
            (
                traits!(TOwnedMapped<Rc<u8>>),
                traits!(OurTOwnedMapped<Rc<u8>>),
            ),
        ] {
            assert_eq!(a[..2], b[..2]);
        }
    }

    #[test]
    fn tokio_lock_futures_are_send_when_the_data_is() {
        fn send<F: Send>(_: &F) {}
        let m: OurTMutex<u8> = Lock::<tokio::sync::Mutex<u8>>::new(0);
        send(&m.lock());
        let l: OurTRwLock<u8> = Lock::<tokio::sync::RwLock<u8>>::new(0);
        send(&l.read());
        send(&l.write());
    }
}

#[cfg(feature = "async-lock")]
mod async_lock_types {
    use super::*;
    pub type AMutex<T> = async_lock::Mutex<T>;
    pub type OurAMutex<T> = Lock<async_lock::Mutex<T>>;
    pub type ARwLock<T> = async_lock::RwLock<T>;
    pub type OurARwLock<T> = Lock<async_lock::RwLock<T>>;
    pub type AGuard<T> = async_lock::MutexGuard<'static, T>;
    pub type OurAGuard<T> = hotpath_lock::async_lock::MutexGuard<'static, T>;
    pub type AUpg<T> = async_lock::RwLockUpgradableReadGuard<'static, T>;
    pub type OurAUpg<T> = hotpath_lock::async_lock::RwLockUpgradableReadGuard<'static, T>;
    pub type AReadArc<T> = async_lock::RwLockReadGuardArc<T>;
    pub type OurAReadArc<T> = hotpath_lock::async_lock::RwLockReadGuardArc<T>;
    pub type AWriteArc<T> = async_lock::RwLockWriteGuardArc<T>;
    pub type OurAWriteArc<T> = hotpath_lock::async_lock::RwLockWriteGuardArc<T>;
    pub type AUpgArc<T> = async_lock::RwLockUpgradableReadGuardArc<T>;
    pub type OurAUpgArc<T> = hotpath_lock::async_lock::RwLockUpgradableReadGuardArc<T>;

    #[test]
    fn async_lock_locks_and_guards() {
        same!(AMutex, OurAMutex);
        same!(ARwLock, OurARwLock);
        same!(AGuard, OurAGuard);
        same!(AUpg, OurAUpg);
    }

    /// The `_arc` guards: `Send` and `Sync` as the raw ones. Unwind safety is not
    /// compared: of `u8` the raw guards are unwind-safe and ours are not (neither the
    /// `Arc` of the measured lock nor the borrowing guard they keep is), as with tokio's
    /// owned guards above.
    #[test]
    fn async_lock_arc_guards_send_and_sync_as_the_raw_ones() {
        macro_rules! send_sync {
            ($raw:ident, $ours:ident) => {
                for (a, b) in [
                    (traits!($raw<u8>), traits!($ours<u8>)),
                    (traits!($raw<Cell<u8>>), traits!($ours<Cell<u8>>)),
                    (traits!($raw<Rc<u8>>), traits!($ours<Rc<u8>>)),
                ] {
                    assert_eq!(a[..2], b[..2], "{}", stringify!($ours));
                }
            };
        }
        send_sync!(AReadArc, OurAReadArc);
        send_sync!(AWriteArc, OurAWriteArc);
        send_sync!(AUpgArc, OurAUpgArc);
    }
}
