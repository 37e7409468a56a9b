use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

fn block_on<F: Future>(f: F) -> F::Output {
    let mut f = pin!(f);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

#[hotpath::future_fn]
async fn answer() -> u32 {
    42
}

#[hotpath::future_fn(log = true)]
async fn greet(name: &str) -> String {
    format!("hello {name}")
}

struct S(u8);

impl S {
    #[hotpath::future_fn]
    async fn get(&self) -> u8 {
        self.0
    }
}

fn main() {
    assert_eq!(block_on(answer()), 42);
    assert_eq!(block_on(greet("you")), "hello you");
    assert_eq!(block_on(S(3).get()), 3);
}
