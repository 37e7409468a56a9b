struct S;

#[hotpath::measure_all]
impl S {
    #[hotpath::skip(reason = "hot loop")]
    fn f(&self) -> u8 {
        1
    }
}

fn main() {
    assert_eq!(S.f(), 1);
}
