#[hotpath::main(limit = 5, format = "none", limit = 10)]
fn main() {}
