trait Shape {
    #[hotpath::measure]
    fn area(&self) -> f64;
}

struct Square(f64);

impl Shape for Square {
    fn area(&self) -> f64 {
        self.0 * self.0
    }
}

fn main() {
    assert_eq!(Square(2.0).area(), 4.0);
}
