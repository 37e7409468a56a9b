// `nope_limit` names no section: the builder has no such method, in either feature state.
#[hotpath::main(limit = 5, nope_limit = 3)]
fn main() {}
