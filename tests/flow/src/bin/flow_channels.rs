//! Channels with known numbers: each scenario has its own label.
//!
//! Prints on stderr what the program measured itself with `Instant`: `c1_p50_ns=N`, the
//! median latency of the C1 messages, and `c8_bound_ns=N`, the time around the C8
//! message; each an upper bound of the reported latency.

use std::time::{Duration, Instant};

use futures_util::FutureExt;

/// C1: bounded(10), 1000 messages, a consumer that sleeps 1 ms after each receive.
///
/// The consumer takes a message only once the producer is asleep in its send (its
/// thread's state in `/proc` is `S`: the producer does nothing else that sleeps), so
/// every send after the tenth finds the channel full: exactly 990 blocked sends, whatever
/// the machine's load. Each message carries the `Instant` read before its send; the
/// consumer prints the median of the latencies it measured itself (`c1_p50_ns=`), an
/// upper bound of the report's (the wrapper's clock readings lie inside those).
fn bounded_with_a_slow_consumer() {
    let (tx, rx) = hotpath::channel!(std::sync::mpsc::sync_channel::<Instant>(10), label = "c1");
    let (tid_tx, tid_rx) = std::sync::mpsc::channel();
    let producer = std::thread::spawn(move || {
        tid_tx.send(this_thread()).unwrap();
        for _ in 0..1000 {
            tx.send(Instant::now()).unwrap();
        }
    });
    let producer_stat = format!("/proc/self/task/{}/stat", tid_rx.recv().unwrap());
    let mut latencies = Vec::with_capacity(1000);
    for i in 0..1000 {
        if i < 990 {
            while !asleep(&producer_stat) {
                std::thread::yield_now();
            }
        }
        latencies.push(rx.recv().unwrap().elapsed());
        std::thread::sleep(Duration::from_millis(1));
    }
    producer.join().unwrap();
    latencies.sort();
    eprintln!("c1_p50_ns={}", latencies[latencies.len() / 2].as_nanos());
}

/// The calling thread's id, from the `/proc/thread-self` link (`PID/task/TID`).
fn this_thread() -> String {
    let link = std::fs::read_link("/proc/thread-self").unwrap();
    link.file_name().unwrap().to_string_lossy().into_owned()
}

/// Whether the thread whose `stat` file is `path` is asleep (state `S`).
fn asleep(path: &str) -> bool {
    let stat = std::fs::read_to_string(path).unwrap();
    // `pid (comm) state ...`: the state follows the last `)`.
    stat[stat.rfind(')').unwrap() + 1..]
        .trim_start()
        .starts_with('S')
}

/// C1f: futures-channel `channel(10)` with one sender holds 11.
fn futures_channel_holds_one_more_per_sender() {
    let (mut tx, mut rx) =
        hotpath::channel!(futures_channel::mpsc::channel::<u32>(10), label = "c1f");
    let mut sent = 0;
    while tx.try_send(sent).is_ok() {
        sent += 1;
    }
    assert_eq!(sent, 11);
    for _ in 0..sent {
        rx.try_recv().unwrap();
    }
}

/// C4: three messages left when both ends drop.
fn unread_at_close() {
    let (tx, rx) = hotpath::channel!(std::sync::mpsc::channel::<u8>(), label = "c4");
    for i in 0..3 {
        tx.send(i).unwrap();
    }
    drop(rx);
    drop(tx);
}

/// C5: five channels from one site, two messages each; then the same with `iter = true`.
fn five_channels_from_one_site() {
    for _ in 0..5 {
        let (tx, rx) = hotpath::channel!(std::sync::mpsc::channel::<u16>(), label = "c5");
        tx.send(1).unwrap();
        tx.send(2).unwrap();
        rx.recv().unwrap();
        rx.recv().unwrap();
    }
    for _ in 0..5 {
        let (tx, rx) = hotpath::channel!(
            std::sync::mpsc::channel::<u16>(),
            iter = true,
            label = "c5i"
        );
        tx.send(1).unwrap();
        tx.send(2).unwrap();
        rx.recv().unwrap();
        rx.recv().unwrap();
    }
}

/// C6: four producer threads × 250 messages, one consumer.
fn four_producers() {
    let (tx, rx) = hotpath::channel!(crossbeam_channel::unbounded::<u64>(), label = "c6");
    let producers: Vec<_> = (0..4)
        .map(|p| {
            let tx = tx.clone();
            std::thread::spawn(move || {
                for i in 0..250 {
                    tx.send(p * 1000 + i).unwrap();
                }
            })
        })
        .collect();
    drop(tx);
    let got = rx.iter().count();
    assert_eq!(got, 1000);
    for p in producers {
        p.join().unwrap();
    }
}

/// C6s: four producer threads × 250 on a std channel, one after another, nothing
/// received until the receiver drops: the first sending thread counts its sends on its
/// own counter, the others on the shared one; depth and unread see all 1000.
fn four_producers_then_unread() {
    let (tx, rx) = hotpath::channel!(std::sync::mpsc::channel::<u64>(), label = "c6s");
    for p in 0..4 {
        let tx = tx.clone();
        std::thread::spawn(move || {
            for i in 0..250 {
                tx.send(p * 1000 + i).unwrap();
            }
        })
        .join()
        .unwrap();
    }
    drop(rx);
    assert!(tx.send(0).is_err());
}

/// C7: 100 oneshots sent and received, one sender dropped unsent, one receiver dropped
/// before the send.
fn oneshots() {
    for i in 0..102u32 {
        let (tx, rx) = hotpath::channel!(tokio::sync::oneshot::channel::<u32>(), label = "c7");
        match i {
            100 => {
                drop(tx);
                assert!(rx.now_or_never().unwrap().is_err());
            }
            101 => {
                drop(rx);
                assert_eq!(tx.send(i), Err(i));
            }
            _ => {
                tx.send(i).unwrap();
                assert_eq!(rx.now_or_never().unwrap().unwrap(), i);
            }
        }
    }
}

/// C8: one message, busy 5 ms between its send and its receive, on one thread.
fn latency_against_an_independent_clock() {
    let (tx, rx) = hotpath::channel!(std::sync::mpsc::channel::<u8>(), label = "c8");
    let a = Instant::now();
    tx.send(1).unwrap();
    while a.elapsed() < Duration::from_millis(5) {
        std::hint::spin_loop();
    }
    rx.recv().unwrap();
    let bound = a.elapsed();
    eprintln!("c8_bound_ns={}", bound.as_nanos());
}

/// Tokio broadcast with room for 4: ten messages before the receiver reads; it misses 6.
fn broadcast_lags() {
    let (tx, mut rx) = hotpath::channel!(tokio::sync::broadcast::channel::<u32>(4), label = "bc");
    for i in 0..10 {
        tx.send(i).unwrap();
    }
    let mut got = Vec::new();
    loop {
        match rx.try_recv() {
            Ok(v) => got.push(v),
            Err(tokio::sync::broadcast::error::TryRecvError::Lagged(n)) => assert_eq!(n, 6),
            Err(_) => break,
        }
    }
    assert_eq!(got, [6, 7, 8, 9]);
}

/// Tokio watch: ten sends, then one observation: nine coalesced; five more, then a
/// `wait_for` that takes the fifth: four more coalesced.
fn watch_coalesces() {
    let (tx, mut rx) = hotpath::channel!(tokio::sync::watch::channel(0u32), label = "wt");
    for i in 1..=10 {
        tx.send(i).unwrap();
    }
    rx.changed().now_or_never().unwrap().unwrap();
    assert_eq!(*rx.borrow_and_update(), 10);
    for i in 11..=15 {
        tx.send(i).unwrap();
    }
    let v = rx.wait_for(|v| *v == 15).now_or_never().unwrap().unwrap();
    assert_eq!((*v, v.has_changed()), (15, true));
}

/// Tokio mpsc: `reserve`/`Permit::send`, `recv_many` of 8.
fn tokio_permits_and_recv_many() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    rt.block_on(async {
        let (tx, mut rx) = hotpath::channel!(tokio::sync::mpsc::channel::<u8>(8), label = "tk");
        for i in 0..4 {
            tx.reserve().await.unwrap().send(i);
        }
        for i in 4..8 {
            tx.send(i).await.unwrap();
        }
        let mut v = Vec::new();
        assert_eq!(rx.recv_many(&mut v, 8).await, 8);
        assert_eq!(v, [0, 1, 2, 3, 4, 5, 6, 7]);
    });
}

#[hotpath::main]
fn main() {
    bounded_with_a_slow_consumer();
    futures_channel_holds_one_more_per_sender();
    unread_at_close();
    five_channels_from_one_site();
    four_producers();
    four_producers_then_unread();
    oneshots();
    latency_against_an_independent_clock();
    broadcast_lags();
    watch_coalesces();
    tokio_permits_and_recv_many();
}
