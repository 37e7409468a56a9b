#[hotpath::measure(label = "")]
fn f() {}

fn main() {
    f();
}
