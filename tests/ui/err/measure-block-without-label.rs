fn main() {
    let _x = hotpath::measure_block!(1 + 1);
}
