fn main() {
    let _m = hotpath::mutex!(std::sync::Mutex::new(0), label = "a", capacity = 3);
}
