#[hotpath::measure_all]
fn f() -> u8 {
    1
}

fn main() {
    assert_eq!(f(), 1);
}
