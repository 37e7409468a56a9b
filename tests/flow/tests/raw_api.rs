//! Raw-API uses of the wrapped flow types (issue 26 item 6): a cloned `future!` of a
//! `Shared` future, a cloned `stream!`, and `crossbeam_channel::select!` over two wrapped
//! receivers. The same code runs with the `hotpath` feature off (the raw values) and on
//! (the measured ones), with the same results; on, the report read back counts each
//! exactly.
//!
//! ```text
//! cargo test -p hotpath-flow-tests --test raw_api
//! cargo test -p hotpath-flow-tests --test raw_api --features hotpath
//! ```

use futures_util::{FutureExt, StreamExt};
use hotpath::wrap::crossbeam_channel::{select_handle, selected};

const N: u64 = 100;

fn flows() {
    // A `Shared` future measured, cloned, both awaited: the same output.
    let f = hotpath::future!(async { vec![1u8, 2, 3] }.shared(), label = "shared");
    let g = f.clone();
    assert_eq!(f.now_or_never(), Some(vec![1, 2, 3]));
    assert_eq!(g.now_or_never(), Some(vec![1, 2, 3]));
    // A clone never polled.
    let h = hotpath::future!(async { 7u8 }.shared(), label = "unpolled");
    drop(h.clone());
    assert_eq!(h.now_or_never(), Some(7));

    // A cloned stream: each copy yields every item.
    let s = hotpath::stream!(futures_util::stream::iter(0..3u8), label = "cloned");
    let c = s.clone();
    let a: Vec<u8> = s.collect().now_or_never().unwrap();
    let b: Vec<u8> = c.take(2).collect().now_or_never().unwrap();
    assert_eq!((a, b), (vec![0, 1, 2], vec![0, 1]));

    // select! over two wrapped receivers: every message received through it.
    let (tx1, rx1) = hotpath::channel!(crossbeam_channel::bounded::<u64>(8), label = "sel_a");
    let (tx2, rx2) = hotpath::channel!(crossbeam_channel::unbounded::<u64>(), label = "sel_b");
    let producer = std::thread::spawn(move || {
        for i in 0..N {
            tx1.send(i).unwrap();
            tx2.send(1000 + i).unwrap();
        }
        // Kept until every message is received: a disconnected channel is always ready.
        (tx1, tx2)
    });
    let (mut a, mut b) = (Vec::new(), Vec::new());
    while a.len() + b.len() < 2 * N as usize {
        crossbeam_channel::select! {
            recv(select_handle(&rx1)) -> msg => a.push(selected(&rx1, msg).unwrap()),
            recv(select_handle(&rx2)) -> msg => b.push(selected(&rx2, msg).unwrap()),
        }
    }
    drop(producer.join().unwrap());
    // The senders are gone: the select's receive gives the error, as crossbeam's does.
    crossbeam_channel::select! {
        recv(select_handle(&rx1)) -> msg => assert!(selected(&rx1, msg).is_err()),
    }
    assert_eq!(a, (0..N).collect::<Vec<_>>());
    assert_eq!(b, (1000..1000 + N).collect::<Vec<_>>());
}

#[test]
fn clones_and_select_behave_as_raw_and_count_exactly() {
    let path =
        std::env::temp_dir().join(format!("hotpath-flow-raw-api-{}.json", std::process::id()));
    let session = hotpath::HotpathGuardBuilder::new("raw_api")
        .format(hotpath::Format::Json)
        .output_path(&path)
        .build();
    flows();
    drop(session);
    #[cfg(feature = "hotpath")]
    counts(&path);
    let _ = std::fs::remove_file(&path);
}

#[cfg(feature = "hotpath")]
fn counts(path: &std::path::Path) {
    use hotpath::report::Report;

    let json = std::fs::read_to_string(path).expect("the report");
    let r = Report::from_json(&json).unwrap_or_else(|e| panic!("{e}: {json}"));
    let future = |label: &str| {
        let f = r.futures.as_ref().expect("a futures section");
        let f = f
            .iter()
            .find(|f| f.label.as_deref() == Some(label))
            .expect(label);
        (f.calls, f.completed, f.cancelled, f.never_polled)
    };
    // Each clone is a call of the site: both completed.
    assert_eq!(future("shared"), (2, 2, 0, 0));
    assert_eq!(future("unpolled"), (2, 1, 0, 1));

    let s = r.streams.as_ref().expect("a streams section");
    let s = s
        .iter()
        .find(|s| s.label.as_deref() == Some("cloned"))
        .expect("cloned");
    // Two instances: one ran to its end (3 items), one dropped after 2.
    assert_eq!((s.instances, s.items, s.completed, s.dropped), (2, 5, 1, 1));

    let channel = |label: &str| {
        let c = r.channels.as_ref().expect("a channels section");
        let c = c
            .iter()
            .find(|c| c.label.as_deref() == Some(label))
            .expect(label);
        (c.sent, c.received, c.unread)
    };
    assert_eq!(channel("sel_a"), (N, N, 0));
    assert_eq!(channel("sel_b"), (N, N, 0));
}
