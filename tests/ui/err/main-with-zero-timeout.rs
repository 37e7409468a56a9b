#[hotpath::main(timeout = 0)]
fn main() {}
