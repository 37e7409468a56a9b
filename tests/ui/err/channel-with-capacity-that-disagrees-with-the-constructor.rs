fn main() {
    let _ = hotpath::channel!(std::sync::mpsc::sync_channel::<u8>(4), capacity = 5);
}
