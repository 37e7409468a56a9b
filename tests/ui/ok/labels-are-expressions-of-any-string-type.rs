//! `label = <expression>` on the six macros that take a label: any value that is
//! `AsRef<str>`, borrowed (a `String` given by name is still usable after), with the same
//! types in both builds.
use std::borrow::Cow;
use std::io::Write;
use std::sync::Arc;

/// A label passed through another macro's `expr` fragment.
macro_rules! labelled_io {
    ($v:expr, $l:expr) => {
        hotpath::io!($v, label = $l)
    };
}

fn main() {
    let name = String::from("worker");
    let shard: &str = "shard";
    let cow: Cow<'static, str> = Cow::Borrowed("cow");
    let shared: Arc<str> = Arc::from("shared");

    let (tx, rx) = hotpath::channel!(std::sync::mpsc::channel::<u8>(), label = format!("{name}-1"));
    tx.send(1).unwrap();
    let (tx2, rx2) = hotpath::channel!(
        std::sync::mpsc::sync_channel::<u8>(1),
        label = &name,
        iter = true,
        capacity = 1
    );
    tx2.send(2).unwrap();
    assert_eq!(rx.recv().unwrap() + rx2.recv().unwrap(), 3);

    let s = hotpath::stream!(futures_util::stream::iter(0..2u8), label = name.clone());
    let _ = s;
    let f = hotpath::future!(std::future::ready(5), label = cow.clone());
    let _ = f;

    let mut w = hotpath::io!(Vec::new(), label = shard);
    w.write_all(b"a").unwrap();
    let mut w2 = hotpath::io!(Vec::new(), label = cow, iter = true);
    w2.write_all(b"b").unwrap();
    let mut w3 = hotpath::io!(Vec::new(), iter = true, label = shared.clone());
    w3.write_all(b"c").unwrap();
    let mut w4 = labelled_io!(Vec::new(), "passed through");
    w4.write_all(b"d").unwrap();
    assert_eq!(hotpath::io_unwrap(w), b"a");

    let m = hotpath::mutex!(std::sync::Mutex::new(1), label = name);
    let l = hotpath::rw_lock!(std::sync::RwLock::new(2), label = &shared);
    *m.lock().unwrap() += *l.read().unwrap();
    assert_eq!(*m.lock().unwrap(), 3);
    // Borrowed, not moved.
    assert_eq!(name, "worker");
}
