#[hotpath::main(limit = "5")]
fn main() {}
