#[hotpath::main(percentiles = [])]
fn main() {}
