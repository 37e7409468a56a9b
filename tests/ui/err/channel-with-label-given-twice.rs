fn main() {
    let _ = hotpath::channel!(std::sync::mpsc::channel::<u8>(), label = "a", label = "b");
}
