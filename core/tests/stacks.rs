//! The calling-context tree and the trace ring against ground truth the test knows:
//! paths, exact calls per path, recursion folded as the flat table folds it, an async
//! fn on the path of its first poll wherever it is polled later, the node budget, and
//! the ring keeping the latest calls.
//!
//! One test (one process, switches set once): each part runs on its own thread, so it
//! gets its own shard, tree and ring.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use hotpath_core::stacks::{StackNode, Stacks};
use hotpath_core::{snapshot, CallSite, MeasuredFuture, Scope, SiteKind};

macro_rules! site {
    ($name:ident, $kind:ident) => {
        static $name: CallSite = CallSite::new(
            || stringify!($name),
            None,
            file!(),
            line!(),
            SiteKind::$kind,
        );
    };
}

site!(MAIN, Function);
site!(A, Function);
site!(B, Function);
site!(FIB, Function);
site!(OUTER, Function);
site!(FUT, AsyncFunction);
site!(INNER, Function);
site!(WIDE, Function);
site!(LEAF0, Function);
site!(LEAF1, Function);
site!(RING, Function);

/// Busy-waits `ns` of wall time; adds what it took to `took` (a busy machine can
/// preempt it past its end).
fn spin_ns(ns: u64, took: &std::sync::atomic::AtomicU64) {
    let t = std::time::Instant::now();
    while (t.elapsed().as_nanos() as u64) < ns {
        std::hint::spin_loop();
    }
    took.fetch_add(
        t.elapsed().as_nanos() as u64,
        std::sync::atomic::Ordering::Relaxed,
    );
}

static A_TOOK: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
static B_TOOK: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The node at the end of `path` (site names from the root).
fn node<'a>(s: &'a Stacks, path: &[&str]) -> Option<&'a StackNode> {
    let mut at = 0;
    for name in path {
        at = s
            .nodes
            .iter()
            .enumerate()
            .skip(1)
            .find(|(_, n)| n.parent == at && n.site.is_some_and(|x| x.name() == *name))?
            .0;
    }
    Some(&s.nodes[at])
}

fn children(s: &Stacks, path: &[&str]) -> Vec<String> {
    let mut at = 0;
    for name in path {
        at = s
            .nodes
            .iter()
            .enumerate()
            .skip(1)
            .find(|(_, n)| n.parent == at && n.site.is_some_and(|x| x.name() == *name))
            .unwrap()
            .0;
    }
    s.nodes
        .iter()
        .filter(|n| n.parent == at && !std::ptr::eq(*n, &s.nodes[0]))
        .map(|n| {
            n.site
                .map_or("[truncated]".to_string(), |x| x.name().to_string())
        })
        .collect()
}

fn fib(n: u64) -> u64 {
    let _s = Scope::enter(&FIB);
    if n < 2 {
        n
    } else {
        fib(n - 1) + fib(n - 2)
    }
}

struct Noop;
impl Wake for Noop {
    fn wake(self: Arc<Self>) {}
}

/// Pending on its first poll, ready on the second.
struct YieldOnce(bool);
impl Future for YieldOnce {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            Poll::Pending
        }
    }
}

#[test]
fn paths_calls_recursion_async_budget_and_ring() {
    hotpath_core::stacks::configure(true, 64);
    hotpath_core::trace::configure(true, 16);

    // main -> a x10 (1 ms own) -> b (2 ms own); fib(10) under main.
    std::thread::spawn(|| {
        let _m = Scope::enter(&MAIN);
        for _ in 0..10 {
            let _a = Scope::enter(&A);
            spin_ns(1_000_000, &A_TOOK);
            let _b = Scope::enter(&B);
            spin_ns(2_000_000, &B_TOOK);
        }
        fib(10);
    })
    .join()
    .unwrap();

    // An async fn first polled under `outer` on one thread, then polled (and calling
    // `inner`) on another thread with nothing below it.
    let mut fut = Box::pin(MeasuredFuture::new(&FUT, async {
        YieldOnce(false).await;
        let _i = Scope::enter(&INNER);
    }));
    let waker = Waker::from(Arc::new(Noop));
    // The first thread stays alive until the second poll is done: a path is kept as a
    // node of its thread's tree, which is reset when that thread exits.
    let (polled, first_done) = std::sync::mpsc::channel();
    let (done, wait) = std::sync::mpsc::channel::<()>();
    let first = std::thread::spawn(move || {
        let _o = Scope::enter(&OUTER);
        assert!(fut
            .as_mut()
            .poll(&mut Context::from_waker(&waker))
            .is_pending());
        polled.send((fut, waker)).unwrap();
        let _ = wait.recv();
    });
    let mut fut = first_done.recv().unwrap();
    std::thread::spawn(move || {
        assert!(fut
            .0
            .as_mut()
            .poll(&mut Context::from_waker(&fut.1))
            .is_ready());
    })
    .join()
    .unwrap();
    done.send(()).unwrap();
    first.join().unwrap();

    // 100 distinct paths on a budget of 64: the rest folds into `[truncated]`.
    std::thread::spawn(|| {
        let _w = Scope::enter(&WIDE);
        for i in 0..100u32 {
            // Alternating sites (one site nested in itself would fold): a chain of
            // i + 1 frames, so 100 distinct paths in all.
            let mut guards = Vec::new();
            for k in 0..=i {
                guards.push(Scope::enter(if k % 2 == 0 { &LEAF0 } else { &LEAF1 }));
            }
            while guards.pop().is_some() {}
        }
    })
    .join()
    .unwrap();

    // The ring: 100 calls, capacity 16.
    std::thread::spawn(|| {
        for _ in 0..100 {
            let _r = Scope::enter(&RING);
        }
    })
    .join()
    .unwrap();

    let snap = snapshot();
    let s = snap.stacks.as_ref().expect("stacks were on");

    let main = node(s, &["MAIN"]).unwrap();
    let a = node(s, &["MAIN", "A"]).unwrap();
    let b = node(s, &["MAIN", "A", "B"]).unwrap();
    assert_eq!((main.calls, a.calls, b.calls), (1, 10, 10));
    assert_eq!(children(s, &["MAIN"]), ["A", "FIB"]);
    assert_eq!(children(s, &["MAIN", "A"]), ["B"]);
    // Busy-waits of known length: at least what they took (which is at least what they
    // asked for), and a generous upper bound over it.
    let (a_took, b_took) = (
        A_TOOK.load(std::sync::atomic::Ordering::Relaxed),
        B_TOOK.load(std::sync::atomic::Ordering::Relaxed),
    );
    assert!(b_took >= 20_000_000 && a_took >= 10_000_000);
    // (The profiler's clock is the TSC, the busy-waits' `Instant`: 0.1 % for the ratio.)
    let at_least = |got: u64, took: u64| got as f64 >= took as f64 * 0.999;
    assert!(
        at_least(b.self_ns, b_took) && b.self_ns < b_took + 50_000_000,
        "{b:?} {b_took}"
    );
    assert!(
        at_least(a.self_ns, a_took) && a.self_ns < a_took + 50_000_000,
        "{a:?} {a_took}"
    );
    assert_eq!(b.total_ns, b.self_ns);
    assert!(
        a.total_ns.abs_diff(a.self_ns + b.total_ns) <= 20,
        "{a:?} {b:?}"
    );
    assert!(main.total_ns >= a.total_ns);

    // fib(10): 177 calls, all folded into one node; no fib;fib path.
    let f = node(s, &["MAIN", "FIB"]).unwrap();
    assert_eq!(f.calls, 177);
    assert!(node(s, &["MAIN", "FIB", "FIB"]).is_none());
    let flat = snap
        .sites
        .iter()
        .find(|x| std::ptr::eq(x.site, &FIB))
        .unwrap();
    assert_eq!(
        f.total_ns, flat.total_ns,
        "outermost call only, as the flat table"
    );
    assert_eq!(f.self_ns, flat.self_ns, "every level's self time");

    // The future is one call on the path of its first poll, and what its later poll
    // called is below it, though that poll ran on another thread with an empty stack.
    let fut = node(s, &["OUTER", "FUT"]).expect("OUTER;FUT");
    assert_eq!(fut.calls, 1);
    assert!(node(s, &["FUT"]).is_none(), "{:?}", children(s, &[]));
    assert_eq!(node(s, &["OUTER", "FUT", "INNER"]).unwrap().calls, 1);

    // The budget: `[truncated]` children hold what did not fit, calls are kept.
    assert!(snap.stacks.as_ref().unwrap().overflowed_threads >= 1);
    let wide_calls: u64 = {
        let mut sum = 0;
        let mut stack = vec![node_index(s, &["WIDE"])];
        while let Some(i) = stack.pop() {
            sum += s.nodes[i].calls;
            stack.extend((1..s.nodes.len()).filter(|&j| s.nodes[j].parent == i));
        }
        sum
    };
    let leafs: u64 = (1..=100u64).sum();
    let truncated_root = s
        .nodes
        .iter()
        .filter(|n| n.truncated && n.parent == 0)
        .map(|n| n.calls)
        .sum::<u64>();
    assert_eq!(wide_calls + truncated_root, 1 + leafs);
    assert!(s.nodes.iter().any(|n| n.truncated && n.calls > 0));

    // The ring kept the latest 16 of 100 calls.
    let trace = hotpath_core::trace::collect();
    let ring: Vec<_> = trace
        .threads
        .iter()
        .filter(|t| t.events.iter().any(|e| std::ptr::eq(e.site, &RING)))
        .collect();
    assert_eq!(ring.len(), 1);
    assert_eq!(ring[0].events.len(), 16);
    assert_eq!(ring[0].dropped, 84);
    assert!(ring[0].events.windows(2).all(|w| w[0].end <= w[1].start));
}

fn node_index(s: &Stacks, path: &[&str]) -> usize {
    let n = node(s, path).unwrap();
    s.nodes.iter().position(|x| std::ptr::eq(x, n)).unwrap()
}
