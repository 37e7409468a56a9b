struct S;

#[hotpath::measure_all(label = "s")]
impl S {
    fn f(&self) -> u8 {
        1
    }
}

fn main() {
    assert_eq!(S.f(), 1);
}
