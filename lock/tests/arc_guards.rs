//! The guards that own an `Arc` of their lock (`ArcGuard`: parking_lot's and
//! async-lock's `lock_arc`, tokio's `lock_owned`) keep the lock alive exactly as long as
//! they need it: the last `Arc` dropped while a guard holds, guards moved to other
//! threads or swapped, an owned acquisition cancelled while it waits. The data counts its
//! drops, so a lock freed early (or twice, or never) shows; run under valgrind's memcheck
//! (see `ArcGuard`'s Soundness section), a use after free does too.
#![cfg(any(feature = "parking_lot", feature = "tokio", feature = "async-lock"))]

use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;

use hotpath_lock::ArcGuard;

/// Data on the heap that counts its drops.
struct Tracked {
    drops: Arc<AtomicUsize>,
    items: Vec<String>,
}

impl Tracked {
    fn push(&mut self, s: &str) {
        self.items.push(s.to_string());
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        self.drops.fetch_add(1, SeqCst);
    }
}

/// Whether a lock's [`Tracked`] data was dropped. It keeps no `Weak` of the lock: that
/// would keep the lock's memory allocated after its last `Arc`, and hide a use after
/// free from memcheck.
struct Watch {
    drops: Arc<AtomicUsize>,
}

/// A lock made by `make` around new [`Tracked`] data (items: `first`), and its watch.
fn watched<L>(make: impl FnOnce(Tracked) -> L) -> (Arc<L>, Watch) {
    let drops = Arc::new(AtomicUsize::new(0));
    let lock = Arc::new(make(Tracked {
        drops: drops.clone(),
        items: vec!["first".to_string()],
    }));
    (lock, Watch { drops })
}

impl Watch {
    /// The lock's data is not dropped.
    #[track_caller]
    fn alive(&self) {
        assert_eq!(self.drops.load(SeqCst), 0);
    }

    /// The lock's data is dropped, once: its last `Arc` went.
    #[track_caller]
    fn freed(&self) {
        assert_eq!(self.drops.load(SeqCst), 1);
    }
}

/// How many `Arc`s hold the lock of `g`, `g`'s own included.
fn arcs<L: ?Sized, G>(g: &ArcGuard<L, G>) -> usize {
    Arc::strong_count(ArcGuard::lock(g))
}

#[cfg(feature = "parking_lot")]
mod parking_lot_arc {
    use super::*;
    use hotpath_lock::Lock;

    type M = Lock<parking_lot::Mutex<Tracked>>;
    type R = Lock<parking_lot::RwLock<Tracked>>;

    #[test]
    fn the_guard_keeps_the_mutex_after_the_last_other_arc() {
        let (m, watch) = watched(M::new);
        let mut g = m.lock_arc();
        drop(m);
        assert_eq!(arcs(&g), 1);
        g.push("held");
        watch.alive();
        assert_eq!(g.items, ["first", "held"]);
        drop(g);
        watch.freed();
    }

    #[test]
    fn try_lock_arc_meets_a_held_lock_and_a_free_one() {
        let (m, watch) = watched(M::new);
        let g = m.try_lock_arc().expect("free");
        assert!(m.try_lock_arc().is_none());
        assert!(Arc::ptr_eq(ArcGuard::lock(&g), &m));
        drop(g);
        let mut g = m.try_lock_arc().expect("free again");
        drop(m);
        g.push("after");
        drop(g);
        watch.freed();
    }

    #[test]
    fn read_and_write_guards_keep_the_rw_lock() {
        let (l, watch) = watched(R::new);
        l.write_arc().push("written");
        let (r1, r2) = (l.read_arc(), l.read_arc());
        drop(l);
        assert_eq!((arcs(&r1), arcs(&r2)), (2, 2));
        assert_eq!(r1.items, ["first", "written"]);
        drop(r1);
        assert_eq!(arcs(&r2), 1);
        watch.alive();
        assert_eq!(r2.items.len(), 2);
        drop(r2);
        watch.freed();
    }

    #[test]
    fn swapped_guards_each_keep_their_own_lock() {
        let ((a, watch_a), (b, watch_b)) = (watched(M::new), watched(M::new));
        let mut ga = a.lock_arc();
        let mut gb = b.lock_arc();
        std::mem::swap(&mut ga, &mut gb);
        drop((a, b));
        // `ga` now holds `b`, `gb` holds `a`.
        ga.push("to b");
        gb.push("to a");
        drop(gb);
        watch_a.freed();
        watch_b.alive();
        let b = ArcGuard::lock(&ga).clone();
        drop(ga);
        assert_eq!(b.lock().items, ["first", "to b"]);
        drop(b);
        watch_b.freed();
    }

    #[test]
    fn the_last_arc_goes_on_another_thread_while_the_guard_holds() {
        let (m, watch) = watched(M::new);
        let mut g = m.lock_arc();
        std::thread::spawn(move || drop(m)).join().unwrap();
        g.push("still here");
        assert_eq!(g.items.len(), 2);
        drop(g);
        watch.freed();
    }
}

#[cfg(feature = "tokio")]
mod tokio_owned {
    use super::*;
    use hotpath_lock::Lock;
    use std::future::Future;
    use std::task::{Context, Waker};

    type M = Lock<tokio::sync::Mutex<Tracked>>;
    type R = Lock<tokio::sync::RwLock<Tracked>>;

    fn block_on<F: Future>(f: F) -> F::Output {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(f)
    }

    #[test]
    fn owned_guards_move_to_other_threads_with_the_last_arc() {
        let (m, watch) = watched(M::new);
        let g = m.clone().blocking_lock_owned();
        drop(m);
        let pushed = std::thread::spawn(move || {
            let mut g = g;
            g.push("moved");
            g.items.len()
        });
        assert_eq!(pushed.join().unwrap(), 2);
        watch.freed();
    }

    #[test]
    fn a_waiting_owned_lock_gets_the_lock_its_holder_let_go() {
        let (m, watch) = watched(M::new);
        block_on(async {
            let held = m.clone().lock_owned().await;
            assert!(m.clone().try_lock_owned().is_err());
            let waiter = tokio::spawn(m.clone().lock_owned());
            tokio::task::yield_now().await;
            drop(m);
            drop(held);
            let mut g = waiter.await.unwrap();
            g.push("waited");
            assert_eq!(arcs(&g), 1);
            watch.alive();
        });
        watch.freed();
    }

    #[test]
    fn an_owned_acquisition_cancelled_while_waiting_lets_the_lock_go() {
        let (m, watch) = watched(M::new);
        let held = m.clone().try_lock_owned().expect("free");
        let mut waiting = Box::pin(m.clone().lock_owned());
        let mut cx = Context::from_waker(Waker::noop());
        assert!(waiting.as_mut().poll(&mut cx).is_pending());
        drop(m);
        drop(waiting);
        assert_eq!(arcs(&held), 1);
        watch.alive();
        drop(held);
        watch.freed();
    }

    #[test]
    fn owned_read_and_write_guards_keep_the_rw_lock() {
        let (l, watch) = watched(R::new);
        block_on(async {
            let mut w = l.clone().write_owned().await;
            w.push("written");
            assert!(l.clone().try_read_owned().is_err());
            drop(w);
            let r1 = l.clone().read_owned().await;
            let r2 = l.clone().try_read_owned().expect("shared");
            assert!(l.clone().try_write_owned().is_err());
            drop(l);
            drop(r1);
            assert_eq!(r2.items, ["first", "written"]);
            std::thread::spawn(move || drop(r2)).join().unwrap();
        });
        watch.freed();
        let (l, watch) = watched(R::new);
        let mut w = l.clone().try_write_owned().expect("free");
        drop(l);
        w.push("last");
        drop(w);
        watch.freed();
    }

    #[test]
    fn swapped_owned_guards_each_keep_their_own_lock() {
        let ((a, watch_a), (b, watch_b)) = (watched(M::new), watched(M::new));
        let mut ga = a.clone().blocking_lock_owned();
        let mut gb = b.clone().blocking_lock_owned();
        std::mem::swap(&mut ga, &mut gb);
        drop((a, b));
        ga.push("to b");
        gb.push("to a");
        let t = std::thread::spawn(move || drop(ga));
        drop(gb);
        t.join().unwrap();
        watch_a.freed();
        watch_b.freed();
    }
    #[test]
    fn a_mapped_owned_guard_keeps_the_mutex_after_the_last_other_arc() {
        let (m, watch) = watched(M::new);
        let g = m.clone().blocking_lock_owned();
        drop(m);
        let mut items = hotpath_lock::tokio::OwnedMutexGuard::map(g, |t| &mut t.items);
        assert_eq!(arcs(&items), 1);
        items.push("mapped".to_string());
        let found = hotpath_lock::tokio::OwnedMappedMutexGuard::try_map(items, |v| v.get_mut(1));
        let mut second = found.expect("item 1");
        second.push('!');
        let second = std::thread::spawn(move || {
            watch.alive();
            let s = second.clone();
            drop(second);
            watch.freed();
            s
        });
        assert_eq!(second.join().unwrap(), "mapped!");
    }

    #[test]
    fn a_map_that_panics_releases_the_guard_before_the_last_arc() {
        let (m, watch) = watched(M::new);
        let g = m.clone().blocking_lock_owned();
        drop(m);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            hotpath_lock::tokio::OwnedMutexGuard::map(g, |_| -> &mut u8 { panic!("in map") })
        }));
        assert!(r.is_err());
        watch.freed();
        let (m, watch) = watched(M::new);
        let g = m.clone().blocking_lock_owned();
        drop(m);
        let g = match hotpath_lock::tokio::OwnedMutexGuard::try_map(g, |_| None::<&mut u8>) {
            Ok(_) => unreachable!("nothing to find"),
            Err(g) => g,
        };
        assert_eq!(arcs(&g), 1);
        drop(g);
        watch.freed();
    }
}

#[cfg(feature = "async-lock")]
mod async_lock_arc {
    use super::*;
    use hotpath_lock::Lock;
    use std::future::Future;
    use std::task::{Context, Waker};

    type M = Lock<async_lock::Mutex<Tracked>>;

    #[test]
    fn arc_guards_keep_the_mutex_across_threads() {
        let (m, watch) = watched(M::new);
        let g = m.lock_arc_blocking();
        assert!(m.try_lock_arc().is_none());
        drop(m);
        assert_eq!(arcs(&g), 1);
        watch.alive();
        std::thread::spawn(move || {
            let mut g = g;
            g.push("moved");
        })
        .join()
        .unwrap();
        watch.freed();
    }

    #[test]
    fn awaited_and_tried_arc_guards_keep_the_mutex() {
        let (m, watch) = watched(M::new);
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            let mut g = m.lock_arc().await;
            g.push("awaited");
            drop(g);
            let mut g = m.try_lock_arc().expect("free");
            assert!(m.try_lock_arc().is_none());
            drop(m);
            g.push("tried");
            assert_eq!(g.items, ["first", "awaited", "tried"]);
        });
        watch.freed();
    }

    type R = Lock<async_lock::RwLock<Tracked>>;
    type Upgradable = hotpath_lock::async_lock::RwLockUpgradableReadGuardArc<Tracked>;
    type Write = hotpath_lock::async_lock::RwLockWriteGuardArc<Tracked>;

    #[test]
    fn rw_arc_guards_keep_the_lock_through_upgrades_and_downgrades() {
        let (l, watch) = watched(R::new);
        let u = l.upgradable_read_arc_blocking();
        let r = l.try_read_arc().expect("shared");
        let u = Upgradable::try_upgrade(u).err().expect("a reader is there");
        drop(r);
        drop(l);
        assert_eq!(arcs(&u), 1);
        let mut w = Upgradable::upgrade_blocking(u);
        w.push("upgraded");
        let u = Write::downgrade_to_upgradable(w);
        let r = Upgradable::downgrade(u);
        assert_eq!((arcs(&r), r.items.len()), (1, 2));
        watch.alive();
        std::thread::spawn(move || drop(r)).join().unwrap();
        watch.freed();

        let (l, watch) = watched(R::new);
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            let mut w = l.write_arc().await;
            w.push("written");
            let r = Write::downgrade(w);
            let u = l.upgradable_read_arc().await;
            drop(l);
            drop(r);
            let mut w = Upgradable::upgrade(u).await;
            assert_eq!(arcs(&w), 1);
            w.push("awaited");
            let r = Write::downgrade(w);
            assert_eq!(r.items, ["first", "written", "awaited"]);
        });
        watch.freed();
    }

    #[test]
    fn an_upgrade_cancelled_while_readers_stay_lets_the_lock_go() {
        let (l, watch) = watched(R::new);
        let reader = l.read_arc_blocking();
        let u = l
            .try_upgradable_read_arc()
            .expect("free to an upgradable read");
        drop(l);
        let mut upgrading = Box::pin(Upgradable::upgrade(u));
        let mut cx = Context::from_waker(Waker::noop());
        assert!(upgrading.as_mut().poll(&mut cx).is_pending());
        drop(upgrading);
        assert_eq!(arcs(&reader), 1);
        watch.alive();
        drop(reader);
        watch.freed();
        let (l, watch) = watched(R::new);
        let w = l.try_write_arc().expect("free");
        assert!(l.try_read_arc().is_none() && l.try_upgradable_read_arc().is_none());
        drop(w);
        let r = l.read_arc_blocking();
        drop(l);
        drop(r);
        watch.freed();
    }
}
