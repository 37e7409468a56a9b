// `#[hotpath::main]` with limits where only associated items may stand (an inherent
// method, a trait's default method), on bodies that open with inner attributes: both
// feature states compile it and run it the same.
struct App;

impl App {
    #[hotpath::main(format = "none", io_limit = 3)]
    fn run(n: u64) -> u64 {
        #![allow(unused_mut)]
        let mut x = n;
        x + 1
    }
}

trait Runner {
    #[hotpath::main(format = "none", limit = 2, sql_limit = 1)]
    fn go(&self) -> u32 {
        7
    }
}

impl Runner for App {}

fn main() {
    assert_eq!(App::run(1), 2);
    // `run`'s session ended when it returned, so `go` starts one of its own.
    assert_eq!(App.go(), 7);
}
