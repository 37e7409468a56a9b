// rustc itself rejects an out-of-line module as attribute-macro input (E0658, unstable);
// the attribute still runs and adds its own message.
#[hotpath::measure_all]
#[path = "measure-all-on-out-of-line-module/elsewhere.rs"]
mod elsewhere;

fn main() {}
