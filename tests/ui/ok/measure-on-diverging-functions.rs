//! Bodies that never reach their end: no warning, no change in what they do.
#![deny(warnings)]
use std::panic::catch_unwind;

#[hotpath::measure]
fn never(msg: &str) -> ! {
    panic!("{msg}")
}

#[hotpath::measure]
fn never_loops(limit: u32) -> ! {
    let mut i = 0;
    loop {
        i += 1;
        if i == limit {
            never("limit")
        }
    }
}

#[hotpath::measure]
fn only_returns(x: u32) -> u32 {
    return x + 1;
}

#[hotpath::measure]
fn returns_from_a_loop(x: u32) -> u32 {
    loop {
        return x * 2;
    }
}

#[hotpath::measure]
fn unfinished(_x: u32) -> u32 {
    unimplemented!("later")
}

#[hotpath::measure]
fn unit_that_panics() {
    panic!("unit")
}

fn main() {
    assert!(catch_unwind(|| never("boom")).is_err());
    assert!(catch_unwind(|| never_loops(3)).is_err());
    assert_eq!(only_returns(1), 2);
    assert_eq!(returns_from_a_loop(2), 4);
    assert!(catch_unwind(|| unfinished(1)).is_err());
    assert!(catch_unwind(unit_that_panics).is_err());
}
