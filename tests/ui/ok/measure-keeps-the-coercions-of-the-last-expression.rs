//! The return type is still the expected type of the body's last expression, so the
//! coercions that applied there still apply.
#![deny(warnings)]
use std::fmt::Display;

#[hotpath::measure]
fn unsized_box(x: u8) -> Box<dyn Display> {
    Box::new(x)
}

#[hotpath::measure]
fn unsized_in_an_option(x: u8) -> Option<Box<dyn Display>> {
    Some(Box::new(x))
}

#[hotpath::measure]
fn deref_to_str(s: &String) -> &str {
    s
}

#[hotpath::measure]
fn mut_to_shared(v: &mut Vec<u8>) -> &[u8] {
    v
}

#[hotpath::measure]
fn array_to_slice() -> Box<[u8]> {
    Box::new([1, 2, 3])
}

#[hotpath::measure]
fn closure_to_fn_pointer() -> fn(u8) -> u8 {
    |x| x + 1
}

#[hotpath::measure]
fn in_every_arm(k: u8) -> Box<dyn Display> {
    match k {
        0 => Box::new("zero"),
        1 => Box::new(1.5),
        _ => Box::new(k),
    }
}

fn main() {
    assert_eq!(unsized_box(4).to_string(), "4");
    assert_eq!(unsized_in_an_option(5).unwrap().to_string(), "5");
    assert_eq!(deref_to_str(&"s".to_string()), "s");
    assert_eq!(mut_to_shared(&mut vec![1, 2]), [1, 2]);
    assert_eq!(&*array_to_slice(), [1, 2, 3]);
    assert_eq!(closure_to_fn_pointer()(1), 2);
    assert_eq!(in_every_arm(0).to_string(), "zero");
    assert_eq!(in_every_arm(1).to_string(), "1.5");
    assert_eq!(in_every_arm(7).to_string(), "7");
}
