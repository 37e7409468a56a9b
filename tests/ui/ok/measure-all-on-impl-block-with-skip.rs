use std::cell::Cell;

struct Account {
    balance: Cell<i64>,
}

#[hotpath::measure_all]
impl Account {
    const LIMIT: i64 = 1000;

    fn new() -> Self {
        Account {
            balance: Cell::new(0),
        }
    }

    fn deposit(&self, x: i64) -> Result<i64, String> {
        if x > Self::LIMIT {
            return Err(format!("{x} is over the limit"));
        }
        self.balance.set(self.balance.get() + x);
        Ok(self.balance.get())
    }

    #[hotpath::skip]
    fn balance(&self) -> i64 {
        self.balance.get()
    }

    #[hotpath::measure(label = "Account::reset")]
    fn reset(&mut self) {
        self.balance.set(0);
    }

    const fn zero() -> i64 {
        0
    }

    async fn later(&self) -> i64 {
        self.balance.get()
    }

    fn generic<T: Into<i64>>(&self, x: T) -> i64 {
        x.into() + self.balance()
    }
}

const ZERO: i64 = Account::zero();

fn main() {
    let mut a = Account::new();
    assert_eq!(a.deposit(5), Ok(5));
    assert_eq!(a.deposit(7), Ok(12));
    assert!(a.deposit(5000).is_err());
    assert_eq!(a.balance(), 12);
    assert_eq!(a.generic(3u8), 15);
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    assert_eq!(rt.block_on(a.later()), 12);
    a.reset();
    assert_eq!(a.balance(), ZERO);
}
