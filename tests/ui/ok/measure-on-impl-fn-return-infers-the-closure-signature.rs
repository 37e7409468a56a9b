//! A closure returned as `impl Fn` takes its signature, higher-ranked lifetimes included,
//! from the return type.
#![deny(warnings)]

#[hotpath::measure]
fn length() -> impl Fn(&str) -> usize {
    |s| s.len()
}

#[hotpath::measure]
fn identity() -> impl for<'a> Fn(&'a str) -> &'a str {
    |s| s.trim()
}

#[hotpath::measure]
fn counter(start: u32) -> impl FnMut() -> u32 {
    let mut n = start;
    move || {
        n += 1;
        n
    }
}

#[hotpath::measure]
fn numbers() -> impl Iterator<Item = u8> {
    vec![].into_iter().chain(Some(3))
}

fn main() {
    assert_eq!(length()("abc"), 3);
    let s = String::from(" x ");
    assert_eq!(identity()(&s), "x");
    let mut c = counter(1);
    assert_eq!((c(), c()), (2, 3));
    assert_eq!(numbers().collect::<Vec<_>>(), [3]);
}
