//! The guards that own an `Arc` of their lock, as `hotpath::wrap` names them: tokio's
//! `OwnedMutexGuard::{map, try_map, mutex}` and async-lock's `RwLock::{read_arc,
//! write_arc, upgradable_read_arc}` with their upgrades and downgrades. The same code
//! compiles and gives the same results with the `hotpath` feature off (the raw types)
//! and on (the measured ones):
//!
//! ```text
//! cargo test --test lock_owned_guards --features tokio,async-lock
//! cargo test --test lock_owned_guards --features hotpath,tokio,async-lock
//! ```
#![cfg(any(feature = "tokio", feature = "async-lock"))]

use std::future::Future;
use std::sync::Arc;

fn block_on<F: Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(f)
}

#[cfg(feature = "tokio")]
mod tokio_owned {
    use super::*;
    use hotpath::wrap::tokio::sync as w;

    type Data = (u32, Vec<u32>);

    #[test]
    fn an_owned_guard_maps_and_names_its_mutex() {
        let m: Arc<w::Mutex<Data>> =
            Arc::new(hotpath::mutex!(tokio::sync::Mutex::new((1, vec![2]))));
        block_on(async {
            let g: w::OwnedMutexGuard<Data> = m.clone().lock_owned().await;
            assert!(Arc::ptr_eq(w::OwnedMutexGuard::mutex(&g), &m));
            let mut first: w::OwnedMappedMutexGuard<Data, u32> =
                w::OwnedMutexGuard::map(g, |v| &mut v.0);
            *first += 10;
            assert_eq!((*first, format!("{first}")), (11, "11".to_string()));
            // The mapped guard still holds the mutex.
            assert!(m.try_lock().is_err());
            drop(first);

            let g = m.clone().lock_owned().await;
            // Not found: the guard comes back, still holding.
            let g = match w::OwnedMutexGuard::try_map(g, |v| v.1.get_mut(5)) {
                Ok(_) => unreachable!("no element 5"),
                Err(g) => g,
            };
            assert!(m.try_lock().is_err());
            let found = w::OwnedMutexGuard::try_map(g, |v| v.1.get_mut(0));
            let mut second = found.expect("element 0");
            *second *= 3;
            // A mapped guard narrows further, and gives itself back when `f` finds nothing.
            let second = match w::OwnedMappedMutexGuard::try_map(second, |_| None::<&mut u8>) {
                Ok(_) => unreachable!("nothing to find"),
                Err(g) => g,
            };
            let mut bytes = w::OwnedMappedMutexGuard::map(second, |x| x);
            *bytes += 1;
            // Moved to another thread, with the last other `Arc` gone meanwhile.
            let t = std::thread::spawn(move || {
                let v = *bytes;
                drop(bytes);
                v
            });
            assert_eq!(t.join().unwrap(), 7);
            assert_eq!(*m.lock().await, (11, vec![7]));
        });
    }
}

#[cfg(feature = "async-lock")]
mod async_lock_arc {
    use super::*;
    use hotpath::wrap::async_lock as w;

    #[test]
    fn rw_lock_arc_guards_read_write_upgrade_and_downgrade() {
        let l: Arc<w::RwLock<Vec<u32>>> =
            Arc::new(hotpath::rw_lock!(async_lock::RwLock::new(vec![1])));
        block_on(async {
            let r1: w::RwLockReadGuardArc<Vec<u32>> = l.read_arc().await;
            let r2 = l.try_read_arc().expect("shared");
            assert!(l.try_write_arc().is_none());
            let u: w::RwLockUpgradableReadGuardArc<Vec<u32>> = l.upgradable_read_arc().await;
            assert!(l.try_upgradable_read_arc().is_none());
            // Readers are there: the upgrade fails and gives the guard back.
            let u = match w::RwLockUpgradableReadGuardArc::try_upgrade(u) {
                Ok(_) => unreachable!("two readers hold the lock"),
                Err(u) => u,
            };
            assert_eq!((r1.len(), r2.len(), u.len()), (1, 1, 1));
            drop((r1, r2));
            let mut wg: w::RwLockWriteGuardArc<Vec<u32>> =
                w::RwLockUpgradableReadGuardArc::upgrade(u).await;
            wg.push(2);
            assert!(l.try_read_arc().is_none());
            let u = w::RwLockWriteGuardArc::downgrade_to_upgradable(wg);
            assert!(l.try_read_arc().is_some());
            let r = w::RwLockUpgradableReadGuardArc::downgrade(u);
            assert_eq!(
                (r.as_slice(), format!("{r:?}")),
                (&[1, 2][..], "[1, 2]".to_string())
            );
            drop(r);

            let mut wg = l.write_arc().await;
            wg.push(3);
            let r = w::RwLockWriteGuardArc::downgrade(wg);
            assert!(l.try_write_arc().is_none());
            drop(r);
            let mut wg = l.try_write_arc().expect("free");
            wg.push(4);
            drop(wg);
        });
        let u = l.upgradable_read_arc_blocking();
        let r = l.read_arc_blocking();
        assert!(w::RwLockUpgradableReadGuardArc::try_upgrade(u).is_err());
        drop(r);
        let u = l.try_upgradable_read_arc().expect("free");
        let mut wg = w::RwLockUpgradableReadGuardArc::upgrade_blocking(u);
        wg.push(5);
        drop(wg);
        let mut wg = l.write_arc_blocking();
        wg.push(6);
        // Moved to another thread with the last `Arc` of the lock.
        drop(l);
        let t = std::thread::spawn(move || wg.clone());
        assert_eq!(t.join().unwrap(), [1, 2, 3, 4, 5, 6]);
    }
}
