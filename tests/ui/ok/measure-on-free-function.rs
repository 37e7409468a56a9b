#[hotpath::measure]
fn add(a: u32, b: u32) -> u32 {
    a + b
}

#[hotpath::measure]
pub fn no_return_value(out: &mut Vec<u32>) {
    out.push(1);
}

#[hotpath::measure]
pub(crate) fn with_pattern_arguments((a, b): (u32, u32), _: u8) -> u32 {
    a * b
}

fn main() {
    assert_eq!(add(2, 3), 5);
    let mut v = Vec::new();
    no_return_value(&mut v);
    no_return_value(&mut v);
    assert_eq!(v, [1, 1]);
    assert_eq!(with_pattern_arguments((6, 7), 0), 42);
}
