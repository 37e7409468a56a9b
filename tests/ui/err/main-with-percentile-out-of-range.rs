#[hotpath::main(percentiles = [50, 100.5])]
fn main() {}
