#[hotpath::measure]
struct Point {
    x: i32,
}

fn main() {
    let p = Point { x: 1 };
    assert_eq!(p.x, 1);
}
