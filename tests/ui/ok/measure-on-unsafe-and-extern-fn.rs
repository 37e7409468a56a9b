#[hotpath::measure]
unsafe fn read(p: *const u32) -> u32 {
    // SAFETY: the caller passes a valid pointer.
    unsafe { *p }
}

#[hotpath::measure]
extern "C" fn c_abi(x: i32) -> i32 {
    x - 1
}

#[hotpath::measure]
pub(crate) unsafe extern "C" fn both(p: *mut u8) {
    // SAFETY: the caller passes a valid pointer.
    unsafe { *p += 1 }
}

#[hotpath::measure]
extern "C" fn default_abi_spelled_out() -> u8 {
    3
}

fn main() {
    let x = 5u32;
    // SAFETY: `&x` is valid.
    assert_eq!(unsafe { read(&x) }, 5);
    assert_eq!(c_abi(1), 0);
    let f: extern "C" fn(i32) -> i32 = c_abi;
    assert_eq!(f(10), 9);
    let mut b = 1u8;
    // SAFETY: `&mut b` is valid.
    unsafe { both(&mut b) };
    assert_eq!(b, 2);
    assert_eq!(default_abi_spelled_out(), 3);
}
