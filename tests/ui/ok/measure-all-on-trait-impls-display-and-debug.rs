use std::fmt;

struct Point {
    x: i32,
    y: i32,
}

#[hotpath::measure_all]
impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {})", self.x, self.y)
    }
}

#[hotpath::measure_all]
impl fmt::Debug for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Point")
            .field("x", &self.x)
            .field("y", &self.y)
            .finish()
    }
}

trait Shape {
    fn area(&self) -> f64;
    fn name(&self) -> String {
        "shape".to_string()
    }
}

#[hotpath::measure_all]
impl Shape for Point {
    fn area(&self) -> f64 {
        0.0
    }
}

#[hotpath::measure_all]
impl<T: fmt::Debug> Shape for Vec<T> {
    fn area(&self) -> f64 {
        self.len() as f64
    }

    fn name(&self) -> String {
        format!("{self:?}")
    }
}

fn main() {
    let p = Point { x: 1, y: -2 };
    assert_eq!(p.to_string(), "(1, -2)");
    assert_eq!(format!("{p:?}"), "Point { x: 1, y: -2 }");
    assert_eq!(p.area(), 0.0);
    assert_eq!(p.name(), "shape");
    assert_eq!(vec![1, 2].area(), 2.0);
    assert_eq!(vec![1, 2].name(), "[1, 2]");
}
