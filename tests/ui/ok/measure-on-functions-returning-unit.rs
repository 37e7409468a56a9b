//! `()` bodies ending in a statement, in an expression of type `()`, or in an early return.
#![deny(warnings)]
use std::cell::Cell;

#[hotpath::measure]
fn ends_with_a_statement(c: &Cell<u32>) {
    c.set(c.get() + 1);
}

#[hotpath::measure]
fn ends_with_a_unit_expression(c: &Cell<u32>) {
    ends_with_a_statement(c)
}

#[hotpath::measure]
fn spelled_out(c: &Cell<u32>) -> () {
    if c.get() > 100 {
        return;
    }
    c.set(c.get() + 10)
}

#[hotpath::measure]
fn empty() {}

#[hotpath::measure]
fn ends_with_a_loop(c: &Cell<u32>) {
    loop {
        c.set(c.get() + 1);
        if c.get() % 5 == 0 {
            break;
        }
    }
}

#[hotpath::measure]
fn ends_with_a_let_else(c: &Cell<u32>, o: Option<u32>) {
    let Some(v) = o else { return };
    c.set(v);
}

fn main() {
    let c = Cell::new(0);
    ends_with_a_statement(&c);
    ends_with_a_unit_expression(&c);
    spelled_out(&c);
    empty();
    assert_eq!(c.get(), 12);
    ends_with_a_loop(&c);
    assert_eq!(c.get(), 15);
    ends_with_a_let_else(&c, None);
    assert_eq!(c.get(), 15);
    ends_with_a_let_else(&c, Some(40));
    assert_eq!(c.get(), 40);
}
