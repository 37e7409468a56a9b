//! Differential scripts for the rest of the wrappers: the unbounded channels, oneshots,
//! broadcast and watch. As in `differential.rs`: the log is committed in
//! `tests/golden/<name>.log`, so the builds with and without the `hotpath` feature must
//! both produce it.

use futures_util::FutureExt;
use hotpath_flow_tests::{run, Script};

mod common;

use common::check;

const SEED: u64 = 0xD1FF_0002;

fn d<T: std::fmt::Debug>(v: T) -> String {
    format!("{v:?}")
}

/// An unbounded channel: sends never wait.
struct Unbounded<S, T, R, V> {
    tx: Option<T>,
    rx: Option<V>,
    send: S,
    recv: R,
}

impl<S, T, R, V> Script for Unbounded<S, T, R, V>
where
    S: FnMut(&T, u64) -> String,
    R: FnMut(&mut V, bool) -> String,
{
    fn capacity(&self) -> usize {
        usize::MAX
    }
    fn try_send(&mut self, v: u64) -> String {
        (self.send)(self.tx.as_ref().unwrap(), v)
    }
    fn send(&mut self, v: u64) -> String {
        (self.send)(self.tx.as_ref().unwrap(), v)
    }
    fn try_recv(&mut self) -> String {
        (self.recv)(self.rx.as_mut().unwrap(), false)
    }
    fn recv(&mut self) -> String {
        (self.recv)(self.rx.as_mut().unwrap(), true)
    }
    fn status(&mut self) -> String {
        format!("{} {}", self.tx.is_some(), self.rx.is_some())
    }
    fn drop_sender(&mut self) {
        self.tx = None;
    }
    fn drop_receiver(&mut self) {
        self.rx = None;
    }
}

fn unbounded<S, T, R, V>(pair: (T, V), send: S, recv: R) -> Unbounded<S, T, R, V>
where
    S: FnMut(&T, u64) -> String,
    R: FnMut(&mut V, bool) -> String,
{
    Unbounded {
        tx: Some(pair.0),
        rx: Some(pair.1),
        send,
        recv,
    }
}

#[test]
fn std_channel_is_transparent() {
    let log = run(SEED, 5_000, || {
        unbounded(
            hotpath::channel!(std::sync::mpsc::channel::<u64>()),
            |t, v| d(t.send(v)),
            |r, wait| if wait { d(r.recv()) } else { d(r.try_recv()) },
        )
    });
    check("std_channel", &log);
}

#[test]
fn crossbeam_unbounded_is_transparent() {
    let log = run(SEED, 5_000, || {
        unbounded(
            hotpath::channel!(crossbeam_channel::unbounded::<u64>()),
            |t, v| d(t.send(v)),
            |r, wait| if wait { d(r.recv()) } else { d(r.try_recv()) },
        )
    });
    check("crossbeam_unbounded", &log);
}

#[test]
fn flume_unbounded_is_transparent() {
    let log = run(SEED, 5_000, || {
        unbounded(
            hotpath::channel!(flume::unbounded::<u64>()),
            |t, v| d(t.send(v)),
            |r, wait| {
                if wait {
                    d(r.recv_async().now_or_never())
                } else {
                    d(r.try_recv())
                }
            },
        )
    });
    check("flume_unbounded", &log);
}

#[test]
fn async_channel_unbounded_is_transparent() {
    let log = run(SEED, 5_000, || {
        unbounded(
            hotpath::channel!(async_channel::unbounded::<u64>()),
            |t, v| d(t.try_send(v)),
            |r, wait| {
                if wait {
                    d(r.recv_blocking())
                } else {
                    d(r.try_recv())
                }
            },
        )
    });
    check("async_channel_unbounded", &log);
}

#[test]
fn tokio_unbounded_channel_is_transparent() {
    let log = run(SEED, 5_000, || {
        unbounded(
            hotpath::channel!(tokio::sync::mpsc::unbounded_channel::<u64>()),
            |t, v| d(t.send(v)),
            |r, wait| {
                if wait {
                    d(r.recv().now_or_never())
                } else {
                    d(r.try_recv())
                }
            },
        )
    });
    check("tokio_unbounded_channel", &log);
}

#[test]
fn futures_unbounded_is_transparent() {
    let log = run(SEED, 5_000, || {
        unbounded(
            hotpath::channel!(futures_channel::mpsc::unbounded::<u64>()),
            |t, v| d(t.unbounded_send(v)),
            |r, wait| {
                if wait {
                    d(r.recv().now_or_never())
                } else {
                    d(r.try_recv())
                }
            },
        )
    });
    check("futures_unbounded", &log);
}

/// xorshift, seeded.
fn rng(seed: u64) -> impl FnMut() -> u64 {
    let mut x = seed | 1;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}

#[test]
fn oneshots_are_transparent() {
    let mut next = rng(SEED);
    let mut log = String::new();
    for i in 0..2_000u64 {
        let (tx, mut rx) = hotpath::channel!(tokio::sync::oneshot::channel::<u64>());
        let line = match next() % 5 {
            0 => format!("{:?} {:?}", tx.send(i), rx.try_recv()),
            1 => {
                drop(tx);
                format!("{:?}", rx.now_or_never())
            }
            2 => {
                rx.close();
                format!("{:?}", tx.send(i))
            }
            3 => format!("{:?} {:?} {:?}", rx.try_recv(), tx.is_closed(), tx.send(i)),
            _ => {
                drop(rx);
                format!("{:?} {:?}", tx.is_closed(), tx.send(i))
            }
        };
        log.push_str(&format!("tokio {i} {line}\n"));
        let (tx, mut rx) = hotpath::channel!(futures_channel::oneshot::channel::<u64>());
        let line = match next() % 4 {
            0 => format!("{:?} {:?}", tx.send(i), rx.try_recv()),
            1 => {
                drop(tx);
                format!("{:?}", rx.now_or_never())
            }
            2 => {
                rx.close();
                format!("{:?} {:?}", tx.is_canceled(), tx.send(i))
            }
            _ => format!(
                "{:?} {:?} {:?}",
                rx.try_recv(),
                tx.send(i),
                rx.now_or_never()
            ),
        };
        log.push_str(&format!("futures {i} {line}\n"));
    }
    check("oneshots", &log);
}

#[test]
fn broadcast_is_transparent() {
    let mut next = rng(SEED);
    let mut log = String::new();
    let (tx, rx) = hotpath::channel!(tokio::sync::broadcast::channel::<u64>(4));
    let mut rxs = vec![rx];
    for i in 0..5_000u64 {
        let k = next() as usize;
        let line = match k % 6 {
            0 | 1 => format!("send {:?} len {}", tx.send(i), tx.len()),
            2 | 3 if !rxs.is_empty() => {
                let j = k / 6 % rxs.len();
                let r = &mut rxs[j];
                format!("recv[{j}] {:?} len {}", r.try_recv(), r.len())
            }
            4 if rxs.len() < 4 => {
                rxs.push(tx.subscribe());
                format!("subscribe {}", tx.receiver_count())
            }
            5 if !rxs.is_empty() => {
                rxs.remove(k / 6 % rxs.len());
                format!("drop {}", tx.receiver_count())
            }
            _ => format!("status {} {}", tx.is_empty(), tx.receiver_count()),
        };
        log.push_str(&format!("{i} {line}\n"));
    }
    check("broadcast", &log);
}

#[test]
fn watch_is_transparent() {
    let mut next = rng(SEED);
    let mut log = String::new();
    let (tx, rx) = hotpath::channel!(tokio::sync::watch::channel(0u64));
    let mut rxs = vec![rx];
    for i in 0..7_000u64 {
        let k = next() as usize;
        // `wait_for` (arms 8 and 9) from op 5,000 on, so that the lines before it stay as
        // they were.
        let arms = if i < 5_000 { 8 } else { 10 };
        let line = match k % arms {
            0 => format!("send {:?}", tx.send(i)),
            1 => format!("replace {}", tx.send_replace(i)),
            2 => {
                tx.send_modify(|v| *v += 1);
                format!("modify {}", *tx.borrow())
            }
            3 => format!(
                "if_modified {}",
                tx.send_if_modified(|v| i % 2 == 0 && {
                    *v = i;
                    true
                })
            ),
            4 | 5 if !rxs.is_empty() => {
                let j = k / 8 % rxs.len();
                let r = &mut rxs[j];
                let changed = r.has_changed();
                let c = r.changed().now_or_never();
                format!("rx[{j}] {changed:?} {c:?} {}", *r.borrow_and_update())
            }
            6 if rxs.len() < 4 => {
                rxs.push(tx.subscribe());
                format!("subscribe {}", tx.receiver_count())
            }
            7 if !rxs.is_empty() => {
                rxs.remove(k / 8 % rxs.len());
                format!("drop {} {}", tx.receiver_count(), tx.is_closed())
            }
            8 | 9 if !rxs.is_empty() => {
                let j = k / 10 % rxs.len();
                let want = (k / 64 % 3) as u64;
                let w = rxs[j]
                    .wait_for(|v| v % 3 == want)
                    .now_or_never()
                    .map(|r| r.map(|v| (*v, v.has_changed())));
                format!("wait_for[{j}] {want} {w:?}")
            }
            _ => format!("borrow {}", *tx.borrow()),
        };
        log.push_str(&format!("{i} {line}\n"));
    }
    check("watch", &log);
}
