use std::sync::{Arc, Mutex, RwLock};

use hotpath::wrap::std::sync::{Condvar, MutexGuard, RwLockReadGuard};

// In a `static`: const construction in both states.
static TOTAL: hotpath::wrap::std::sync::Mutex<u64> =
    hotpath::mutex!(Mutex::new(0), label = "total");
static TABLE: hotpath::wrap::std::sync::RwLock<Vec<u8>> = hotpath::rw_lock!(RwLock::new(Vec::new()));

struct Shared {
    queue: hotpath::wrap::std::sync::Mutex<Vec<u32>>,
    ready: Condvar,
}

fn first(g: &MutexGuard<'_, Vec<u32>>) -> Option<u32> {
    g.first().copied()
}

fn main() {
    let m = hotpath::mutex!(Mutex::new(1u32));
    let l = hotpath::rw_lock!(RwLock::new("a".to_string()), label = "names",);
    *m.lock().unwrap() += 1;
    assert!(m.try_lock().is_ok());
    let r: RwLockReadGuard<'_, String> = l.read().unwrap();
    assert_eq!(*r, "a");
    drop(r);
    l.write().unwrap().push('b');
    assert_eq!(l.into_inner().unwrap(), "ab");
    assert!(!m.is_poisoned());
    assert_eq!(m.into_inner().unwrap(), 2);

    let shared = Arc::new(Shared {
        queue: hotpath::mutex!(Mutex::new(Vec::new())),
        ready: Condvar::new(),
    });
    let s2 = shared.clone();
    let producer = std::thread::spawn(move || {
        s2.queue.lock().unwrap().push(7);
        s2.ready.notify_one();
    });
    let mut g = shared.queue.lock().unwrap();
    while g.is_empty() {
        g = shared.ready.wait(g).unwrap();
    }
    assert_eq!(first(&g), Some(7));
    drop(g);
    producer.join().unwrap();

    *TOTAL.lock().unwrap() += 5;
    TABLE.write().unwrap().push(1);
    assert_eq!((*TOTAL.lock().unwrap(), TABLE.read().unwrap().len()), (5, 1));

    let x = hotpath::dbg!(2 * 21);
    let (a, b) = hotpath::dbg!(x, "b");
    assert_eq!((a, b), (42, "b"));
    let key = String::from("phase");
    hotpath::val!(key).set(&"done");
    hotpath::val!("static key").set(&[1, 2]);
    hotpath::gauge!("queue").set(3).inc(1).dec(2.5);
}
