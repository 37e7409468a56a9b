#[hotpath::main(sql_limit = 5, io_limit = 1, sql_limit = 10)]
fn main() {}
