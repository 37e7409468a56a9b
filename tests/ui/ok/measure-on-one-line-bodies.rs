//! One-expression bodies on one line: no `unused_braces` or other warning from the
//! expansion.
#![deny(warnings)]

#[rustfmt::skip]
#[hotpath::measure]
fn five() -> u32 { 5 }

#[rustfmt::skip]
#[hotpath::measure]
fn unit() { five(); }

#[rustfmt::skip]
#[hotpath::main(format = "none")]
fn main() { assert_eq!(five(), 5); unit() }
