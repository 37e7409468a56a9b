use std::fmt;
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

#[derive(Debug, PartialEq)]
struct AppError(String);

impl From<std::num::ParseIntError> for AppError {
    fn from(e: std::num::ParseIntError) -> Self {
        AppError(e.to_string())
    }
}

impl From<&str> for AppError {
    fn from(e: &str) -> Self {
        AppError(e.to_owned())
    }
}

impl fmt::Display for AppError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for AppError {}

#[hotpath::measure]
async fn parse(s: &str) -> Result<u32, AppError> {
    if s.is_empty() {
        let e = "empty";
        return Err(e.into());
    }
    let v: u32 = s.parse()?;
    Ok(v)
}

#[hotpath::measure]
async fn boxed(s: &str) -> Result<u32, Box<dyn std::error::Error + Send + Sync>> {
    if s == "bad" {
        return Err("bad input".into());
    }
    let v = parse(s).await.map_err(|e| e.0)?;
    Ok(v * 2)
}

#[hotpath::measure]
async fn option_chain(xs: &[u32]) -> Option<u32> {
    let first = xs.first()?;
    Some(first + 1)
}

fn main() {
    assert_eq!(block_on(parse("12")), Ok(12));
    assert_eq!(block_on(parse("")), Err(AppError("empty".into())));
    assert!(block_on(parse("x")).is_err());
    assert_eq!(block_on(boxed("4")).unwrap(), 8);
    assert_eq!(block_on(boxed("bad")).unwrap_err().to_string(), "bad input");
    assert!(block_on(boxed("")).is_err());
    assert_eq!(block_on(option_chain(&[1])), Some(2));
    assert_eq!(block_on(option_chain(&[])), None);
}
