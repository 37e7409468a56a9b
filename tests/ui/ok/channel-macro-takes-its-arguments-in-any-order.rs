use std::sync::mpsc;

fn main() {
    let (tx, rx) = hotpath::channel!(std::sync::mpsc::sync_channel::<u64>(4));
    tx.send(1).unwrap();
    assert_eq!(rx.recv().unwrap(), 1);

    let (tx, rx) = hotpath::channel!(mpsc::sync_channel(2), label = "a", capacity = 2, log = true, iter = true);
    tx.send(String::from("x")).unwrap();
    assert_eq!(rx.recv().unwrap(), "x");

    let (tx, rx) = hotpath::channel!(mpsc::sync_channel::<u8>(2), iter = true, log = false, capacity = 2, label = "b");
    tx.try_send(1).unwrap();
    assert_eq!(rx.try_recv().unwrap(), 1);

    // A trailing comma; the message type inferred from the first send.
    let (tx, rx) = hotpath::channel!(::std::sync::mpsc::channel(), label = "c",);
    tx.send(vec![(1u8, 2u16)]).unwrap();
    assert_eq!(rx.recv().unwrap(), [(1, 2)]);
}
