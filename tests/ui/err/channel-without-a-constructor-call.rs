fn pair() -> (std::sync::mpsc::Sender<u8>, std::sync::mpsc::Receiver<u8>) {
    std::sync::mpsc::channel()
}

fn main() {
    let p = pair();
    let _ = hotpath::channel!(p);
}
