//! `async fn` in a trait's impl, alone or under `measure_all`, and in a default method.
#![deny(warnings)]
use std::future::Future;
use std::task::{Context, Poll, Waker};

trait Store {
    async fn get(&self, k: u8) -> Option<String>;

    #[hotpath::measure]
    async fn get_or(&self, k: u8, d: &str) -> String {
        self.get(k).await.unwrap_or_else(|| d.to_string())
    }
}

struct One;

impl Store for One {
    #[hotpath::measure]
    async fn get(&self, k: u8) -> Option<String> {
        (k == 1).then(|| "one".to_string())
    }
}

struct Two;

#[hotpath::measure_all]
impl Store for Two {
    async fn get(&self, k: u8) -> Option<String> {
        (k == 2).then(|| "two".to_string())
    }
}

fn ready<F: Future>(f: F) -> F::Output {
    match std::pin::pin!(f).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(v) => v,
        Poll::Pending => unreachable!(),
    }
}

fn main() {
    assert_eq!(ready(One.get(1)).as_deref(), Some("one"));
    assert_eq!(ready(One.get_or(3, "none")), "none");
    assert_eq!(ready(Two.get_or(2, "none")), "two");
}
