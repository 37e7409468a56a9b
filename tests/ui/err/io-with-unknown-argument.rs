fn main() {
    let _w = hotpath::io!(Vec::<u8>::new(), label = "a", extra = 1);
}
