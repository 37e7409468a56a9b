use std::fmt::Display;

#[hotpath::measure]
fn evens(n: u32) -> impl Iterator<Item = u32> {
    (0..n).filter(|x| x % 2 == 0)
}

#[hotpath::measure]
fn describe(x: impl Display) -> impl Display + Clone {
    format!("<{x}>")
}

#[hotpath::measure]
fn adder(k: i32) -> impl Fn(i32) -> i32 {
    move |x| x + k
}

#[hotpath::measure]
fn boxed_iter<'a>(v: &'a [u8]) -> Box<dyn Iterator<Item = &'a u8> + 'a> {
    Box::new(v.iter().rev())
}

fn main() {
    assert_eq!(evens(7).collect::<Vec<_>>(), [0, 2, 4, 6]);
    assert_eq!(describe(5).to_string(), "<5>");
    assert_eq!(adder(10)(5), 15);
    assert_eq!(
        boxed_iter(&[1, 2, 3]).copied().collect::<Vec<_>>(),
        [3, 2, 1]
    );
}
