fn main() {
    let id = 7u32;
    let _w = hotpath::io!(Vec::<u8>::new(), label = id + 1);
}
