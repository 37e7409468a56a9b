//! `stream!`, `future!`, `#[future_fn]` and `#[measure(future = true)]` are transparent:
//! one seeded script of 10,000 steps each, feature off and on, must give the same log
//! (committed in `tests/golden/<name>.log`, as in `differential.rs`). The inner stream
//! and futures write their own events (each poll they get, each item, their drop) into
//! the same log, so a wrapper that polled once more, dropped earlier or lost a wake-up
//! would change it.

use std::cell::RefCell;
use std::fmt::Write as _;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use futures_core::stream::FusedStream;
use futures_core::{FusedFuture, Stream};
use futures_sink::Sink;

mod common;

const STEPS: usize = 10_000;
const SEED: u64 = 0x5EED_0F10;

type Log = Rc<RefCell<String>>;

fn check(name: &str, log: &str) {
    assert_eq!(
        log.lines().filter(|l| l.starts_with("step ")).count(),
        STEPS
    );
    common::check(name, log);
}

/// xorshift64, seeded.
#[derive(Clone)]
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
}

/// A stream and sink whose every answer is drawn from its own generator: `Pending`
/// (after waking its task) a quarter of the time, else the next of `left` items, then
/// `None` for good. As a sink it refuses every seventh value and is sometimes not ready.
struct Scripted {
    id: u64,
    rng: Rng,
    left: u64,
    done: bool,
    log: Log,
}

impl Scripted {
    fn note(&self, what: std::fmt::Arguments<'_>) {
        let _ = writeln!(self.log.borrow_mut(), "  inner {} {what}", self.id);
    }
}

impl Stream for Scripted {
    type Item = u64;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<u64>> {
        let r = self.rng.next();
        let p = if self.done {
            Poll::Ready(None)
        } else if r.is_multiple_of(4) {
            cx.waker().wake_by_ref();
            Poll::Pending
        } else if self.left == 0 {
            self.done = true;
            Poll::Ready(None)
        } else {
            self.left -= 1;
            Poll::Ready(Some(r % 1000))
        };
        self.note(format_args!("poll_next {p:?}"));
        p
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.left as usize))
    }
}

impl FusedStream for Scripted {
    fn is_terminated(&self) -> bool {
        self.done
    }
}

impl Sink<u64> for Scripted {
    type Error = u64;

    fn poll_ready(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), u64>> {
        let p = if self.rng.next().is_multiple_of(3) {
            Poll::Pending
        } else {
            Poll::Ready(Ok(()))
        };
        self.note(format_args!("poll_ready {p:?}"));
        p
    }

    fn start_send(self: Pin<&mut Self>, v: u64) -> Result<(), u64> {
        let r = if v.is_multiple_of(7) { Err(v) } else { Ok(()) };
        self.note(format_args!("start_send {v} {r:?}"));
        r
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), u64>> {
        self.note(format_args!("poll_flush"));
        Poll::Ready(Ok(()))
    }

    fn poll_close(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), u64>> {
        self.done = true;
        self.note(format_args!("poll_close"));
        Poll::Ready(Ok(()))
    }
}

impl Drop for Scripted {
    fn drop(&mut self) {
        self.note(format_args!("drop"));
    }
}

#[test]
fn streams_are_transparent() {
    let log: Log = Rc::default();
    let mut rng = Rng(SEED);
    let mut cx = Context::from_waker(Waker::noop());
    let mut made = 0u64;
    let mut new = |rng: &mut Rng, log: &Log| {
        made += 1;
        let inner = Scripted {
            id: made,
            rng: Rng(rng.next() | 1),
            left: rng.next() % 20,
            done: false,
            log: log.clone(),
        };
        Box::pin(hotpath::stream!(inner, label = "diff-stream"))
    };
    let mut s = new(&mut rng, &log);
    for step in 0..STEPS {
        let k = rng.next() % 100;
        let line = match k {
            0..=59 => format!("poll_next {:?}", s.as_mut().poll_next(&mut cx)),
            60..=64 => format!("size_hint {:?}", s.size_hint()),
            65..=69 => format!("is_terminated {}", s.is_terminated()),
            70..=77 => format!("poll_ready {:?}", s.as_mut().poll_ready(&mut cx)),
            78..=85 => format!("start_send {:?}", s.as_mut().start_send(k)),
            86..=89 => format!("poll_flush {:?}", s.as_mut().poll_flush(&mut cx)),
            90 => format!("poll_close {:?}", s.as_mut().poll_close(&mut cx)),
            _ => {
                s = new(&mut rng, &log);
                "new".to_string()
            }
        };
        let _ = writeln!(log.borrow_mut(), "step {step} {line}");
    }
    drop(s);
    let log = log.borrow();
    check("stream", &log);
}

/// A future that answers `Pending` (after waking its task) `pendings` times, then
/// `Ready(value)`; fused: polled again after that it says so and stays ready.
struct Countdown {
    id: u64,
    pendings: u64,
    value: u64,
    done: bool,
    log: Log,
}

impl Future for Countdown {
    type Output = u64;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<u64> {
        let p = if self.pendings > 0 {
            self.pendings -= 1;
            cx.waker().wake_by_ref();
            Poll::Pending
        } else {
            self.done = true;
            Poll::Ready(self.value)
        };
        let _ = writeln!(self.log.borrow_mut(), "  inner {} poll {p:?}", self.id);
        p
    }
}

impl FusedFuture for Countdown {
    fn is_terminated(&self) -> bool {
        self.done
    }
}

impl Drop for Countdown {
    fn drop(&mut self) {
        let _ = writeln!(self.log.borrow_mut(), "  inner {} drop", self.id);
    }
}

#[hotpath::future_fn]
async fn doubled(c: Countdown) -> u64 {
    c.await * 2
}

#[hotpath::measure(future = true)]
async fn plus_one(c: Countdown, d: Countdown) -> u64 {
    c.await + d.await + 1
}

type Boxed = Pin<Box<dyn Future<Output = u64>>>;

#[test]
fn futures_are_transparent() {
    let log: Log = Rc::default();
    let mut rng = Rng(SEED ^ 0xF);
    let mut cx = Context::from_waker(Waker::noop());
    let mut made = 0u64;
    let mut countdown = |rng: &mut Rng, log: &Log| {
        made += 1;
        Countdown {
            id: made,
            pendings: rng.next() % 4,
            value: rng.next() % 1000,
            done: false,
            log: log.clone(),
        }
    };
    // The fused one is kept apart: `is_terminated` is asked of it.
    let mut fused = Box::pin(hotpath::future!(countdown(&mut rng, &log), label = "fused"));
    let mut live: Vec<Boxed> = Vec::new();
    for step in 0..STEPS {
        let k = rng.next() % 100;
        let line = match k {
            0..=14 => {
                let c = countdown(&mut rng, &log);
                live.push(Box::pin(hotpath::future!(c, label = "diff-future")));
                format!("future! {}", live.len())
            }
            15..=19 => {
                let c = countdown(&mut rng, &log);
                live.push(Box::pin(doubled(c)));
                format!("future_fn {}", live.len())
            }
            20..=24 => {
                let (c, d) = (countdown(&mut rng, &log), countdown(&mut rng, &log));
                live.push(Box::pin(plus_one(c, d)));
                format!("measure(future) {}", live.len())
            }
            25..=74 if !live.is_empty() => {
                let i = (k as usize) % live.len();
                let p = live[i].as_mut().poll(&mut cx);
                if p.is_ready() {
                    drop(live.remove(i));
                }
                format!("poll {i} {p:?}")
            }
            75..=84 if !live.is_empty() => {
                let i = (k as usize) % live.len();
                drop(live.remove(i));
                format!("drop {i}")
            }
            85..=89 if !fused.is_terminated() => {
                format!("fused poll {:?}", fused.as_mut().poll(&mut cx))
            }
            90..=94 => format!("fused is_terminated {}", fused.is_terminated()),
            95 => {
                fused = Box::pin(hotpath::future!(countdown(&mut rng, &log), label = "fused"));
                "fused new".to_string()
            }
            _ => format!("live {}", live.len()),
        };
        let _ = writeln!(log.borrow_mut(), "step {step} {line}");
    }
    drop(live);
    drop(fused);
    let log = log.borrow();
    check("future", &log);
}
