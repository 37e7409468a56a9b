//! Methods of `#[async_trait]` impls: `#[measure]` on a method (the impl's attribute
//! expands first: the method is already a function returning the boxed future),
//! `#[measure_all]` below and above `#[async_trait]`, `#[future_fn]` and
//! `#[measure(future = true)]` on such methods, a measured default method, and
//! `#[async_trait(?Send)]`. Values, borrows, early returns and `?` are unchanged, and the
//! futures stay `Send` (or not, with `?Send`).
#![deny(warnings)]
use std::future::Future;
use std::pin::pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use async_trait::async_trait;

fn block_on<F: Future>(f: F) -> F::Output {
    let mut f = pin!(f);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

fn send<T: Send>(t: T) -> T {
    t
}

#[async_trait]
trait Store {
    async fn get(&self, k: u8) -> Option<&str>;
    async fn put(&mut self, v: String) -> Result<usize, std::num::ParseIntError>;
    async fn count(&self) -> usize;

    #[hotpath::measure]
    async fn get_or(&self, k: u8, d: &'static str) -> &str {
        self.get(k).await.unwrap_or(d)
    }
}

#[derive(Default)]
struct OnMethod(Vec<String>);

#[async_trait]
impl Store for OnMethod {
    #[hotpath::measure]
    async fn get(&self, k: u8) -> Option<&str> {
        self.0.get(usize::from(k)).map(String::as_str)
    }

    #[hotpath::measure(label = "put")]
    async fn put(&mut self, v: String) -> Result<usize, std::num::ParseIntError> {
        if v.is_empty() {
            return Ok(self.0.len());
        }
        v.parse::<u32>()?;
        self.0.push(v);
        Ok(self.0.len())
    }

    #[hotpath::future_fn]
    async fn count(&self) -> usize {
        self.0.len()
    }
}

#[derive(Default)]
struct AllBelow(Vec<String>);

#[async_trait]
#[hotpath::measure_all]
impl Store for AllBelow {
    async fn get(&self, k: u8) -> Option<&str> {
        self.0.get(usize::from(k)).map(String::as_str)
    }

    async fn put(&mut self, v: String) -> Result<usize, std::num::ParseIntError> {
        v.parse::<u32>()?;
        self.0.push(v);
        Ok(self.0.len())
    }

    #[hotpath::measure(future = true)]
    async fn count(&self) -> usize {
        self.0.len()
    }
}

#[derive(Default)]
struct AllAbove(Vec<String>);

#[hotpath::measure_all]
#[async_trait]
impl Store for AllAbove {
    async fn get(&self, k: u8) -> Option<&str> {
        self.0.get(usize::from(k)).map(String::as_str)
    }

    async fn put(&mut self, v: String) -> Result<usize, std::num::ParseIntError> {
        v.parse::<u32>()?;
        self.0.push(v);
        Ok(self.0.len())
    }

    #[hotpath::skip]
    async fn count(&self) -> usize {
        self.0.len()
    }
}

#[async_trait(?Send)]
trait Local {
    async fn shared(&self) -> usize;
}

#[async_trait(?Send)]
impl Local for OnMethod {
    #[hotpath::measure]
    async fn shared(&self) -> usize {
        let rc = Rc::new(self.0.len());
        std::future::ready(()).await;
        *rc
    }
}

#[hotpath::measure_all]
#[async_trait(?Send)]
impl Local for AllAbove {
    async fn shared(&self) -> usize {
        let rc = Rc::new(self.0.len());
        std::future::ready(()).await;
        *rc
    }
}

#[async_trait(?Send)]
#[hotpath::measure_all]
impl Local for AllBelow {
    async fn shared(&self) -> usize {
        let rc = Rc::new(self.0.len());
        std::future::ready(()).await;
        *rc
    }
}

async fn exercise<S: Store + Local + Default + Send + Sync>() {
    let mut s = S::default();
    assert_eq!(send(s.put("12".to_string())).await, Ok(1));
    assert!(send(s.put("x".to_string())).await.is_err());
    assert_eq!(send(s.get(0)).await, Some("12"));
    assert_eq!(send(s.get_or(7, "none")).await, "none");
    assert_eq!(send(s.count()).await, 1);
    assert_eq!(s.shared().await, 1);
}

fn main() {
    block_on(exercise::<OnMethod>());
    block_on(exercise::<AllBelow>());
    block_on(exercise::<AllAbove>());
    assert_eq!(block_on(OnMethod::default().put(String::new())), Ok(0));
}
