//! Bodies whose last expression is a labelled block, a loop with a value, an `unsafe`
//! block, or a `match`, and a body with an inner attribute.
#![deny(warnings)]

#[hotpath::measure]
fn labelled(x: u32) -> u32 {
    'done: {
        if x > 10 {
            break 'done x;
        }
        x * 2
    }
}

#[hotpath::measure]
fn loop_value(mut x: u32) -> u32 {
    loop {
        x += 3;
        if x % 7 == 0 {
            break x;
        }
    }
}

#[hotpath::measure]
fn unsafe_tail(v: &[u8]) -> u8 {
    assert!(!v.is_empty());
    // SAFETY: `v` is not empty.
    unsafe { *v.get_unchecked(0) }
}

#[hotpath::measure]
fn inner_attribute() -> u32 {
    #![allow(clippy::let_and_return)]
    let x = 5;
    x
}

#[hotpath::measure]
fn shadows_the_guards_name() -> u32 {
    let __hotpath_scope = 1;
    __hotpath_scope + 1
}

fn main() {
    assert_eq!(labelled(11), 11);
    assert_eq!(labelled(2), 4);
    assert_eq!(loop_value(1), 7);
    assert_eq!(unsafe_tail(&[9]), 9);
    assert_eq!(inner_attribute(), 5);
    assert_eq!(shadows_the_guards_name(), 2);
}
