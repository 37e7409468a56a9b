// A `<section>_limit` is the builder's method of that name, so `#[hotpath::main]` takes
// the limit of every section the builder has (sql, http and server among them), in any
// order, in both feature states.
#[hotpath::measure]
fn work(n: u64) -> u64 {
    (1..=n).sum()
}

#[hotpath::main(
    format = "none",
    server_limit = 3,
    sql_limit = 1,
    limit = 4,
    http_limit = 2,
    functions_limit = 0,
)]
fn main() {
    assert_eq!(work(10), 55);
}
