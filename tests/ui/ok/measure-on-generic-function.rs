use std::fmt::Debug;
use std::ops::Add;

#[hotpath::measure]
fn sum<T: Add<Output = T> + Default + Copy>(xs: &[T]) -> T {
    xs.iter().fold(T::default(), |acc, &x| acc + x)
}

#[hotpath::measure]
fn show<T>(x: T) -> String
where
    T: Debug,
{
    format!("{x:?}")
}

#[hotpath::measure]
fn first_n<const N: usize, T: Copy + Default>(xs: &[T]) -> [T; N] {
    let mut out = [T::default(); N];
    out.copy_from_slice(&xs[..N]);
    out
}

struct Wrapper<T>(T);

impl<T: Clone> Wrapper<T> {
    #[hotpath::measure]
    fn map<U, F: FnOnce(T) -> U>(&self, f: F) -> Wrapper<U> {
        Wrapper(f(self.0.clone()))
    }
}

fn main() {
    assert_eq!(sum(&[1, 2, 3]), 6);
    assert_eq!(sum(&[0.5, 0.25]), 0.75);
    assert_eq!(show(Some("x")), "Some(\"x\")");
    assert_eq!(first_n::<2, u8>(&[9, 8, 7]), [9, 8]);
    assert_eq!(Wrapper(3).map(|x| x * 2).0, 6);
    assert_eq!(Wrapper("a").map(str::len).0, 1);
}
