#[hotpath::measure_all]
mod math {
    pub const TWO: u32 = two();

    pub const fn two() -> u32 {
        2
    }

    pub fn square(x: u32) -> u32 {
        x * x
    }

    #[hotpath::skip]
    pub fn cube(x: u32) -> u32 {
        x * square(x)
    }

    pub struct Acc(pub u32);

    impl Acc {
        pub fn add(&mut self, x: u32) -> &mut Self {
            self.0 += x;
            self
        }
    }

    pub mod nested {
        pub fn halve(x: u32) -> Option<u32> {
            if x % 2 != 0 {
                return None;
            }
            Some(x / super::TWO)
        }
    }

    pub async fn later(x: u32) -> u32 {
        x + 1
    }
}

fn main() {
    assert_eq!(math::square(3), 9);
    assert_eq!(math::cube(3), 27);
    assert_eq!(math::TWO, 2);
    let mut acc = math::Acc(0);
    acc.add(1).add(2);
    assert_eq!(acc.0, 3);
    assert_eq!(math::nested::halve(8), Some(4));
    assert_eq!(math::nested::halve(7), None);
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    assert_eq!(rt.block_on(math::later(1)), 2);
}
