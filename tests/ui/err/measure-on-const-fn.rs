#[hotpath::measure]
const fn two() -> u32 {
    2
}

fn main() {
    assert_eq!(two(), 2);
}
