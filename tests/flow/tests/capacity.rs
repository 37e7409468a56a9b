//! `capacity = N` is checked against the channel, never used to change it.

/// A capacity the constructor agrees with: accepted in both builds.
#[test]
fn a_matching_capacity_is_accepted() {
    let n = 4;
    let (tx, rx) = hotpath::channel!(std::sync::mpsc::sync_channel::<u8>(n), capacity = 4);
    for i in 0..4 {
        tx.try_send(i).unwrap();
    }
    assert!(tx.try_send(9).is_err(), "the channel holds 4, as written");
    assert_eq!(rx.recv().unwrap(), 0);
    let (tx, _rx) = hotpath::channel!(crossbeam_channel::bounded::<u8>(n), capacity = 4);
    assert_eq!(tx.capacity(), Some(4));
    let (tx, _rx) = hotpath::channel!(tokio::sync::mpsc::channel::<u8>(n), capacity = 4);
    assert_eq!(tx.max_capacity(), 4);
}

/// With the feature a disagreeing capacity panics where the channel is made, naming both
/// numbers (literals disagreeing are a compile error in both builds: see the UI tests).
#[cfg(feature = "hotpath")]
#[test]
#[should_panic(expected = "`capacity = 5` is given but the channel was created with capacity 4")]
fn a_disagreeing_capacity_panics_at_construction() {
    let n = 4;
    let _ = hotpath::channel!(std::sync::mpsc::sync_channel::<u8>(n), capacity = 5);
}

#[cfg(feature = "hotpath")]
#[test]
#[should_panic(expected = "`capacity = 8` is given but the channel is unbounded")]
fn a_capacity_on_an_unbounded_channel_panics() {
    let cap = 8;
    let _ = hotpath::channel!(tokio::sync::mpsc::unbounded_channel::<u8>(), capacity = cap);
}
