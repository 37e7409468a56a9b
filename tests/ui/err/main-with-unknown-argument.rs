#[hotpath::main(colour = "red")]
fn main() {}
