//! `#[track_caller]` still reports the caller's location.
#![deny(warnings)]
use std::panic::Location;

#[hotpath::measure]
#[track_caller]
fn called_from() -> &'static Location<'static> {
    Location::caller()
}

#[track_caller]
#[hotpath::measure]
fn called_from_too() -> u32 {
    Location::caller().line()
}

fn main() {
    let here = line!();
    assert_eq!(called_from().line(), here + 1);
    assert_eq!(called_from_too(), here + 2);
}
