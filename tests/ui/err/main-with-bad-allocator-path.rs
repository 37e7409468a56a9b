#[hotpath::main(allocator = "mimalloc::MiMalloc")]
fn main() {}
