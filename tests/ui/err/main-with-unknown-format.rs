#[hotpath::main(format = "xml")]
fn main() {}
