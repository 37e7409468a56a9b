#[hotpath::measure(name = "x")]
fn f() {}

fn main() {
    f();
}
