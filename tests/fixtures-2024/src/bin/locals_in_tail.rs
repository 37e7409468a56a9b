//! Compiles only in edition 2024, where the temporaries of a block's last expression are
//! dropped before its locals: each last expression below borrows a local through a
//! temporary guard. Measured, they must still compile, and free inside the call:
//!
//! | function | bytes allocated (and freed) |
//! |---|---|
//! | `ref_of_a_local` ×2 | 1000, in a `RefCell` borrowed by the last expression |
//! | `guard_of_a_local` ×2 | 500, in a `Mutex` locked by the last expression |
//! | `async_ref_of_a_local` ×2 | as `ref_of_a_local` |
//!
//! `main`'s own last expression borrows one of its locals the same way.
use std::cell::RefCell;
use std::hint::black_box;
use std::sync::Mutex;

#[hotpath::measure]
fn ref_of_a_local() -> usize {
    let cell = RefCell::new(black_box(Vec::<u8>::with_capacity(1000)));
    cell.borrow().capacity()
}

#[hotpath::measure]
fn guard_of_a_local() -> usize {
    let m = Mutex::new(black_box(Vec::<u8>::with_capacity(500)));
    m.lock().unwrap().capacity()
}

#[hotpath::measure]
async fn async_ref_of_a_local() -> usize {
    let cell = RefCell::new(black_box(Vec::<u8>::with_capacity(1000)));
    cell.borrow().capacity()
}

/// Polls a future that never waits to completion.
fn ready<F: std::future::Future>(f: F) -> F::Output {
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match std::pin::pin!(f).poll(&mut cx) {
        std::task::Poll::Ready(v) => v,
        std::task::Poll::Pending => unreachable!("the future does not wait"),
    }
}

#[hotpath::main]
fn main() {
    let total = RefCell::new(0);
    for _ in 0..2 {
        *total.borrow_mut() += ref_of_a_local() + guard_of_a_local();
        *total.borrow_mut() += ready(async_ref_of_a_local());
    }
    assert_eq!(*total.borrow(), 2 * 2500)
}
