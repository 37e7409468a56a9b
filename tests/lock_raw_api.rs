//! parking_lot's lock_api 0.4 methods on the types `hotpath::wrap::parking_lot` names:
//! the timed, recursive and upgradable `_arc` acquisitions, `with_upgraded` and its
//! `try_` forms, the timed upgrades, `unlocked_fair`, `bump`, `try_map_or_err`, the
//! accessors of the lock a guard holds and `into_arc`. The same code compiles and gives
//! the same results with the `hotpath` feature off (the raw types) and on (the measured
//! ones); on, the report read back counts every acquisition of each mode exactly.
//!
//! ```text
//! cargo test --test lock_raw_api --features parking_lot
//! cargo test --test lock_raw_api --features hotpath,parking_lot
//! ```
#![cfg(feature = "parking_lot")]

use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hotpath::wrap::parking_lot as w;

const MS: Duration = Duration::from_millis(1);

fn soon() -> Instant {
    Instant::now() + MS
}

/// Mutex `m`: one `lock` turned by `unlocked_fair` and `bump` into three holds, a timed
/// try that fails, mapped guards. Mutex `am`: the `_arc` guards.
fn mutexes(m: &w::Mutex<(u32, Vec<u32>)>, am: &Arc<w::Mutex<u32>>) {
    let mut g: w::MutexGuard<(u32, Vec<u32>)> = m.lock();
    assert!(std::ptr::eq(w::MutexGuard::mutex(&g), m));
    // Held by this thread: the timed try times out (a failed try).
    assert!(m.try_lock_for(MS).is_none());
    assert_eq!(w::MutexGuard::unlocked_fair(&mut g, || 5), 5);
    w::MutexGuard::bump(&mut g);
    g.0 += 1;
    let g = match w::MutexGuard::try_map_or_err(g, |v| v.1.get_mut(3).ok_or("none")) {
        Ok(_) => unreachable!("no element 3"),
        Err((g, e)) => {
            assert_eq!(e, "none");
            g
        }
    };
    let mapped: w::MappedMutexGuard<u32> =
        w::MutexGuard::try_map_or_err(g, |v| Ok::<_, ()>(&mut v.0)).expect("found");
    let mut mapped = w::MappedMutexGuard::try_map(mapped, |x| Some(x)).expect("found");
    *mapped += 1;
    let mapped = match w::MappedMutexGuard::try_map_or_err(mapped, |_| Err::<&mut u8, _>(7)) {
        Ok(_) => unreachable!("nothing to find"),
        Err((g, e)) => {
            assert_eq!(e, 7);
            g
        }
    };
    assert!(m.is_locked());
    w::MappedMutexGuard::unlock_fair(mapped);
    assert!(!m.is_locked());
    assert_eq!(m.lock().0, 2);

    let mut g: w::ArcMutexGuard<u32> = am.try_lock_arc_for(MS).expect("free");
    assert!(am.try_lock_arc_until(soon()).is_none());
    assert!(Arc::ptr_eq(w::ArcMutexGuard::mutex(&g), am));
    *g += 1;
    assert!(w::ArcMutexGuard::unlocked(&mut g, || am
        .try_lock()
        .is_some()));
    assert_eq!(w::ArcMutexGuard::unlocked_fair(&mut g, || 3), 3);
    w::ArcMutexGuard::bump(&mut g);
    assert!(Arc::ptr_eq(&w::ArcMutexGuard::into_arc(g), am));
    w::ArcMutexGuard::unlock_fair(am.lock_arc());
    let back = w::ArcMutexGuard::into_arc_fair(am.try_lock_arc().expect("free"));
    assert!(Arc::ptr_eq(&back, am));
    assert!(!am.is_locked());
}

/// Read-write lock `rw` through its borrowing guards.
fn rw_borrowed(rw: &w::RwLock<Vec<u32>>) {
    let mut u: w::RwLockUpgradableReadGuard<Vec<u32>> = rw.upgradable_read();
    assert!(std::ptr::eq(w::RwLockUpgradableReadGuard::rwlock(&u), rw));
    let mut r = rw.try_read_recursive_for(MS).expect("shared");
    assert!(std::ptr::eq(w::RwLockReadGuard::rwlock(&r), rw));
    // A reader is there: every upgrade fails and keeps the upgradable guard.
    assert_eq!(u.try_with_upgraded(|v| v.push(0)), None);
    assert_eq!(u.try_with_upgraded_for(MS, |v| v.push(0)), None);
    let mut u = match w::RwLockUpgradableReadGuard::try_upgrade_for(u, MS) {
        Ok(_) => unreachable!("a reader holds the lock"),
        Err(u) => u,
    };
    assert!(rw.try_upgradable_read_for(MS).is_none());
    assert!(rw.try_write_until(soon()).is_none());
    w::RwLockReadGuard::unlocked_fair(&mut r, || ());
    w::RwLockReadGuard::bump(&mut r);
    let r = match w::RwLockReadGuard::try_map(r, |v| v.get(5)) {
        Ok(_) => unreachable!("no element 5"),
        Err(r) => r,
    };
    let r: w::MappedRwLockReadGuard<[u32]> =
        w::RwLockReadGuard::try_map_or_err(r, |v| Ok::<_, ()>(v.as_slice())).expect("slice");
    let r = match w::MappedRwLockReadGuard::try_map_or_else(r, |s| s.get(5).ok_or(9)) {
        Ok(_) => unreachable!("no element 5"),
        Err((r, e)) => {
            assert_eq!(e, 9);
            r
        }
    };
    let r = w::MappedRwLockReadGuard::try_map(r, |s| s.first()).expect("element 0");
    let r = w::MappedRwLockReadGuard::map(r, |x| x);
    assert_eq!(*r, 1);
    w::MappedRwLockReadGuard::unlock_fair(r);

    // No reader now.
    assert_eq!(
        u.with_upgraded(|v| {
            v.push(2);
            v.len()
        }),
        2
    );
    assert_eq!(u.try_with_upgraded_for(MS, |v| v.push(3)), Some(()));
    assert_eq!(
        u.try_with_upgraded_until(soon(), |v| v.pop()),
        Some(Some(3))
    );
    assert_eq!(u.try_with_upgraded(|v| v.len()), Some(2));
    w::RwLockUpgradableReadGuard::unlocked_fair(&mut u, || ());
    w::RwLockUpgradableReadGuard::bump(&mut u);
    assert!(w::RwLockUpgradableReadGuard::unlocked(&mut u, || rw
        .try_write()
        .is_some()));
    let mut wg = w::RwLockUpgradableReadGuard::try_upgrade_until(u, soon()).expect("no reader");
    assert!(std::ptr::eq(w::RwLockWriteGuard::rwlock(&wg), rw));
    w::RwLockWriteGuard::bump(&mut wg);
    w::RwLockWriteGuard::unlocked_fair(&mut wg, || ());
    let wg = match w::RwLockWriteGuard::try_map(wg, |v| v.get_mut(9)) {
        Ok(_) => unreachable!("no element 9"),
        Err(wg) => wg,
    };
    let mut first: w::MappedRwLockWriteGuard<u32> =
        w::RwLockWriteGuard::try_map_or_err(wg, |v| v.first_mut().ok_or(())).expect("found");
    *first += 10;
    let first = w::MappedRwLockWriteGuard::try_map_or_err(first, |x| Ok::<_, ()>(x)).expect("same");
    let first = w::MappedRwLockWriteGuard::try_map(first, |x| Some(x)).expect("same");
    let first = w::MappedRwLockWriteGuard::map(first, |x| x);
    w::MappedRwLockWriteGuard::unlock_fair(first);
    let u = rw.try_upgradable_read_until(soon()).expect("free");
    w::RwLockUpgradableReadGuard::unlock_fair(u);
    let mut wg = rw.write();
    wg.push(4);
    w::RwLockWriteGuard::unlock_fair(wg);
    let r = rw.read();
    assert_eq!(*r, [11, 2, 4]);
    w::RwLockReadGuard::unlock_fair(r);
    assert!(!rw.is_locked());
}

/// `with_upgraded` waits for a reader on another thread: a contended write acquisition.
fn rw_contended(rw: &Arc<w::RwLock<Vec<u32>>>) {
    let mut u = rw.upgradable_read();
    let (reading, read) = mpsc::channel();
    let t = {
        let rw = rw.clone();
        std::thread::spawn(move || {
            let r = rw.read();
            reading.send(()).unwrap();
            std::thread::sleep(20 * MS);
            drop(r);
        })
    };
    read.recv().unwrap();
    let started = Instant::now();
    assert_eq!(
        u.with_upgraded(|v| {
            v.push(5);
            v.len()
        }),
        4
    );
    assert!(started.elapsed() >= 10 * MS, "waited for the reader");
    drop(u);
    t.join().unwrap();
}

/// Read-write lock `arw` through its `_arc` guards.
fn rw_arc(arw: &Arc<w::RwLock<Vec<u32>>>) {
    let mut u: w::ArcRwLockUpgradableReadGuard<Vec<u32>> =
        arw.try_upgradable_read_arc_for(MS).expect("free");
    let r: w::ArcRwLockReadGuard<Vec<u32>> =
        arw.try_read_arc_recursive_until(soon()).expect("shared");
    assert!(arw.try_write_arc_for(MS).is_none());
    assert!(arw.try_write_arc().is_none());
    assert!(arw.try_upgradable_read_arc().is_none());
    assert!(arw.try_upgradable_read_arc_until(soon()).is_none());
    u = match w::ArcRwLockUpgradableReadGuard::try_upgrade(u) {
        Ok(_) => unreachable!("a reader holds the lock"),
        Err(u) => u,
    };
    assert!(Arc::ptr_eq(w::ArcRwLockReadGuard::rwlock(&r), arw));
    assert!(Arc::ptr_eq(&w::ArcRwLockReadGuard::into_arc(r), arw));
    assert!(Arc::ptr_eq(
        w::ArcRwLockUpgradableReadGuard::rwlock(&u),
        arw
    ));
    u.with_upgraded(|v| v.push(1));
    w::ArcRwLockUpgradableReadGuard::bump(&mut u);
    w::ArcRwLockUpgradableReadGuard::unlocked(&mut u, || ());
    let mut wg: w::ArcRwLockWriteGuard<Vec<u32>> = w::ArcRwLockUpgradableReadGuard::upgrade(u);
    assert!(Arc::ptr_eq(w::ArcRwLockWriteGuard::rwlock(&wg), arw));
    w::ArcRwLockWriteGuard::unlocked(&mut wg, || ());
    wg.push(2);
    let u = w::ArcRwLockWriteGuard::downgrade_to_upgradable(wg);
    let mut r = w::ArcRwLockUpgradableReadGuard::downgrade(u);
    w::ArcRwLockReadGuard::unlocked_fair(&mut r, || ());
    w::ArcRwLockReadGuard::bump(&mut r);
    w::ArcRwLockReadGuard::unlocked(&mut r, || ());
    w::ArcRwLockReadGuard::unlock_fair(r);

    let wg = arw.try_write_arc_until(soon()).expect("free");
    let r = w::ArcRwLockWriteGuard::downgrade(wg);
    assert_eq!(*r, [1, 2]);
    drop(r);
    drop(arw.read_arc_recursive());
    drop(arw.try_read_recursive_arc().expect("free"));
    drop(arw.try_read_arc_for(MS).expect("free"));
    drop(arw.try_read_arc_until(soon()).expect("free"));
    let r = arw.try_read_arc().expect("free");
    assert!(Arc::ptr_eq(&w::ArcRwLockReadGuard::into_arc_fair(r), arw));

    let u = arw.try_upgradable_read_arc_until(soon()).expect("free");
    let wg = w::ArcRwLockUpgradableReadGuard::try_upgrade_for(u, MS).expect("no reader");
    assert!(Arc::ptr_eq(&w::ArcRwLockWriteGuard::into_arc_fair(wg), arw));
    let mut u = arw.upgradable_read_arc();
    assert_eq!(u.try_with_upgraded(|v| v.len()), Some(2));
    assert_eq!(
        u.try_with_upgraded_until(soon(), |v| v.pop()),
        Some(Some(2))
    );
    assert_eq!(u.try_with_upgraded_for(MS, |v| v.len()), Some(1));
    w::ArcRwLockUpgradableReadGuard::unlocked_fair(&mut u, || ());
    let mut wg = w::ArcRwLockUpgradableReadGuard::try_upgrade_until(u, soon()).expect("free");
    w::ArcRwLockWriteGuard::bump(&mut wg);
    w::ArcRwLockWriteGuard::unlocked_fair(&mut wg, || ());
    w::ArcRwLockWriteGuard::unlock_fair(wg);
    w::ArcRwLockUpgradableReadGuard::unlock_fair(arw.upgradable_read_arc());
    let u = arw.try_upgradable_read_arc().expect("free");
    assert!(Arc::ptr_eq(
        &w::ArcRwLockUpgradableReadGuard::into_arc_fair(u),
        arw
    ));
    let u = arw.upgradable_read_arc();
    assert!(Arc::ptr_eq(
        &w::ArcRwLockUpgradableReadGuard::into_arc(u),
        arw
    ));
    let wg = arw.write_arc();
    assert!(Arc::ptr_eq(&w::ArcRwLockWriteGuard::into_arc(wg), arw));
    let mut wg = arw.try_write_arc().expect("free");
    wg.push(3);
    assert_eq!(*wg, [1, 3]);
    drop(wg);
    assert!(!arw.is_locked());
}

#[test]
fn lock_api_methods_behave_as_raw_and_count_exactly() {
    let path =
        std::env::temp_dir().join(format!("hotpath-lock-raw-api-{}.json", std::process::id()));
    let session = hotpath::HotpathGuardBuilder::new("lock_raw_api")
        .format(hotpath::Format::Json)
        .output_path(&path)
        .build();
    let m = hotpath::mutex!(parking_lot::Mutex::new((0, vec![1])), label = "m");
    let am = Arc::new(hotpath::mutex!(parking_lot::Mutex::new(0u32), label = "am"));
    mutexes(&m, &am);
    let rw = Arc::new(hotpath::rw_lock!(
        parking_lot::RwLock::new(vec![1]),
        label = "rw"
    ));
    rw_borrowed(&rw);
    rw_contended(&rw);
    assert_eq!(*rw.read(), [11, 2, 4, 5]);
    let arw = Arc::new(hotpath::rw_lock!(
        parking_lot::RwLock::new(Vec::new()),
        label = "arw"
    ));
    rw_arc(&arw);
    drop(session);
    #[cfg(feature = "hotpath")]
    counts(&path);
    let _ = std::fs::remove_file(&path);
}

/// Every acquisition of each mode, from the report read back.
#[cfg(feature = "hotpath")]
fn counts(path: &std::path::Path) {
    use hotpath_report::{LockMode, Report};

    let json = std::fs::read_to_string(path).expect("the report");
    let r = Report::from_json(&json).unwrap_or_else(|e| panic!("{e}: {json}"));
    let mutex = |label: &str| {
        let e = r.mutexes.as_ref().expect("a mutexes section");
        let e = e
            .iter()
            .find(|e| e.label.as_deref() == Some(label))
            .expect(label);
        &e.lock
    };
    let counts = |m: &LockMode| (m.acquisitions, m.contended, m.try_failed);
    // lock → unlocked_fair → bump → unlock_fair: three holds; then `lock` once more.
    // One timed try failed.
    assert_eq!(counts(mutex("m")), (4, 0, 1));
    // try_lock_arc_for → unlocked (inside it a try_lock) → unlocked_fair → bump →
    // into_arc: 4 holds and the try_lock; lock_arc and try_lock_arc: 2 more.
    assert_eq!(counts(mutex("am")), (7, 0, 1));

    let rw_lock = |label: &str| {
        let e = r.rw_locks.as_ref().expect("an rw_locks section");
        let e = e
            .iter()
            .find(|e| e.label.as_deref() == Some(label))
            .expect(label);
        (
            counts(&e.read),
            counts(&e.write),
            counts(e.upgradable.as_ref().expect("upgradable reads")),
        )
    };
    let (read, write, upgradable) = rw_lock("rw");
    // rw_borrowed: try_read_recursive_for → unlocked_fair → bump → (mapped) unlock_fair:
    // 3 holds, and `read` at the end. rw_contended: the other thread's read. Then the
    // test's read.
    assert_eq!(read, (6, 0, 0));
    // rw_borrowed: with_upgraded, try_with_upgraded_for/until, try_with_upgraded: 4;
    // try_write inside `unlocked`: 1; try_upgrade_until → bump → unlocked_fair →
    // (mapped) unlock_fair: 3; write: 1. Failed: try_with_upgraded, try_with_upgraded_for,
    // try_upgrade_for while reading, try_write_until. rw_contended: with_upgraded waits.
    assert_eq!(write, (10, 1, 4));
    // rw_borrowed: upgradable_read, ended by with_upgraded; after it, by each
    // try_with_upgraded*, 3; unlocked_fair, bump, unlocked: 3; try_upgrade_until ends the
    // last: 8 holds; try_upgradable_read_until: 1. Failed: try_upgradable_read_for.
    // rw_contended: upgradable_read ended by with_upgraded, and the one after it.
    assert_eq!(upgradable, (11, 0, 1));

    let (read, write, upgradable) = rw_lock("arw");
    // try_read_arc_recursive_until; downgrade → unlocked_fair → bump → unlocked →
    // unlock_fair: 4; write downgraded; read_arc_recursive, try_read_recursive_arc,
    // try_read_arc_for, try_read_arc_until, try_read_arc.
    assert_eq!(read, (11, 0, 0));
    // with_upgraded; upgrade → unlocked → downgrade_to_upgradable: 2;
    // try_write_arc_until; try_upgrade_for; try_with_upgraded, _until, _for: 3;
    // try_upgrade_until → bump → unlocked_fair → unlock_fair: 3; write_arc; try_write_arc.
    // Failed: try_write_arc_for, try_write_arc, try_upgrade.
    assert_eq!(write, (13, 0, 3));
    // try_upgradable_read_arc_for → with_upgraded → bump → unlocked → upgrade: 4;
    // downgrade_to_upgradable → downgrade: 1; try_upgradable_read_arc_until ended by
    // try_upgrade_for: 1; upgradable_read_arc → 3 try_with_upgraded* → unlocked_fair →
    // try_upgrade_until: 5; unlock_fair, into_arc_fair, into_arc: 3.
    // Failed: try_upgradable_read_arc, try_upgradable_read_arc_until.
    assert_eq!(upgradable, (14, 0, 2));
}
