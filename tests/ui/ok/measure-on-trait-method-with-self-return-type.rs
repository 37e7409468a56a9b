trait Builder: Sized {
    fn value(&self) -> u32;
    fn set(self, v: u32) -> Self;

    #[hotpath::measure]
    fn twice(self) -> Self {
        let v = self.value();
        self.set(v * 2)
    }
}

#[derive(Debug, PartialEq, Clone)]
struct B(u32);

impl Builder for B {
    #[hotpath::measure]
    fn value(&self) -> u32 {
        self.0
    }

    #[hotpath::measure]
    fn set(self, v: u32) -> Self {
        Self(v)
    }
}

impl B {
    #[hotpath::measure]
    fn new() -> Self {
        Self(1)
    }

    #[hotpath::measure]
    fn with(&self, v: u32) -> Self {
        Self { 0: self.0 + v }
    }
}

fn main() {
    assert_eq!(B::new().twice().twice(), B(4));
    assert_eq!(B::new().with(2), B(3));
    assert_eq!(B(5).set(6).value(), 6);
}
