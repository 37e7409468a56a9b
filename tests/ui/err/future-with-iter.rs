fn main() {
    let _ = hotpath::future!(async { 1 }, iter = true);
}
