use std::future::Future;
use std::pin::{pin, Pin};
use std::task::{Context, Poll, Waker};

/// Returns `Pending` once, then `Ready`.
struct YieldOnce(bool);

impl Future for YieldOnce {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

fn block_on<F: Future>(f: F) -> F::Output {
    let mut f = pin!(f);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

#[hotpath::measure]
async fn double(x: u32) -> u32 {
    YieldOnce(false).await;
    x * 2
}

#[hotpath::measure]
async fn nothing() {}

#[hotpath::measure(future = true)]
async fn borrowed(s: &str) -> &str {
    YieldOnce(false).await;
    s.trim()
}

struct Counter {
    n: u32,
}

impl Counter {
    #[hotpath::measure]
    async fn bump(&mut self) -> u32 {
        YieldOnce(false).await;
        self.n += 1;
        self.n
    }
}

#[hotpath::measure]
async fn calls_others() -> u32 {
    let mut c = Counter { n: 0 };
    c.bump().await;
    c.bump().await + double(10).await
}

fn main() {
    assert_eq!(block_on(double(21)), 42);
    block_on(nothing());
    assert_eq!(block_on(borrowed("  x ")), "x");
    assert_eq!(block_on(calls_others()), 22);
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    assert_eq!(rt.block_on(double(4)), 8);
}
