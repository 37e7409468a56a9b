#[hotpath::main(format = "none")]
fn main() {
    let n = hotpath::measure_block!("count", (1..=10).filter(|x| x % 2 == 0).count());
    assert_eq!(n, 5);

    let mut side_effects = 0;
    let s: String = hotpath::measure_block!("block", {
        side_effects += 1;
        let mut s = String::from("a");
        s.push('b');
        s
    });
    assert_eq!(s, "ab");
    assert_eq!(side_effects, 1);

    let unit: () = hotpath::measure_block!("unit", ());
    assert_eq!(unit, ());

    let r: Result<u8, std::num::ParseIntError> =
        (|| Ok(hotpath::measure_block!("question mark", "7".parse::<u8>()?,) + 1))();
    assert_eq!(r, Ok(8));

    for i in 0..3 {
        let doubled = hotpath::measure_block!("in a loop", i * 2);
        assert_eq!(doubled, i * 2);
    }
}
