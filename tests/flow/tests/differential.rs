//! Every wrapper is transparent: one seeded script of 10,000 operations (try_send,
//! send, try_recv, recv, queries, drops, new channels) per backend gives a log that is
//! committed in `tests/golden/<name>.log`, so the build with the `hotpath` feature and
//! the build without it must both produce exactly that log.
//!
//! After a change of the script, write the new logs with
//! `HOTPATH_BLESS=1 cargo nextest run -p hotpath-flow-tests --test differential`
//! (feature off; the run fails on purpose), review them with `git diff`, and check that
//! the runs without the variable pass with the feature off and on.

use futures_util::FutureExt;
use hotpath_flow_tests::{run, Script};

mod common;

const OPS: usize = 10_000;
const SEED: u64 = 0x5EED_F10E;

fn check(name: &str, log: String) {
    assert_eq!(log.lines().count(), OPS);
    common::check(name, &log);
}

fn d<T: std::fmt::Debug>(v: T) -> String {
    format!("{v:?}")
}

macro_rules! sync_script {
    ($name:ident, $cap:expr, $ctor:expr, status = |$tx:ident, $rx:ident| $status:expr) => {
        struct $name<S, R> {
            tx: Option<S>,
            rx: Option<R>,
        }
        impl Script for $name<SenderOf, ReceiverOf> {
            fn capacity(&self) -> usize {
                $cap
            }
            fn try_send(&mut self, v: u64) -> String {
                d(self.tx.as_ref().unwrap().try_send(v))
            }
            fn send(&mut self, v: u64) -> String {
                d(self.tx.as_ref().unwrap().send(v))
            }
            fn try_recv(&mut self) -> String {
                d(self.rx.as_ref().unwrap().try_recv())
            }
            fn recv(&mut self) -> String {
                d(self.rx.as_ref().unwrap().recv())
            }
            fn status(&mut self) -> String {
                let ($tx, $rx) = (self.tx.as_ref(), self.rx.as_ref());
                $status
            }
            fn drop_sender(&mut self) {
                self.tx = None;
            }
            fn drop_receiver(&mut self) {
                self.rx = None;
            }
        }
        fn make() -> $name<SenderOf, ReceiverOf> {
            let (tx, rx) = $ctor;
            $name {
                tx: Some(tx),
                rx: Some(rx),
            }
        }
    };
}

mod std_sync {
    use super::*;
    type SenderOf = hotpath::wrap::std::sync::mpsc::SyncSender<u64>;
    type ReceiverOf = hotpath::wrap::std::sync::mpsc::Receiver<u64>;
    sync_script!(
        Std,
        3,
        hotpath::channel!(std::sync::mpsc::sync_channel::<u64>(3), label = "diff-std"),
        // std has no query that leaves the channel as it is.
        status = |tx, rx| format!("{} {}", tx.is_some(), rx.is_some())
    );

    #[test]
    fn std_sync_channel_is_transparent() {
        check("std_sync_channel", run(SEED, OPS, make));
    }
}

mod crossbeam {
    use super::*;
    type SenderOf = hotpath::wrap::crossbeam_channel::Sender<u64>;
    type ReceiverOf = hotpath::wrap::crossbeam_channel::Receiver<u64>;
    sync_script!(
        Cb,
        3,
        hotpath::channel!(
            crossbeam_channel::bounded::<u64>(3),
            label = "diff-crossbeam"
        ),
        status = |tx, rx| format!(
            "{:?} {:?} {:?}",
            tx.map(|t| (t.len(), t.is_full(), t.is_empty(), t.capacity())),
            rx.map(|r| (r.len(), r.is_full(), r.capacity())),
            tx.zip(rx).map(|(t, r)| t.len() == r.len())
        )
    );

    #[test]
    fn crossbeam_bounded_is_transparent() {
        check("crossbeam_bounded", run(SEED, OPS, make));
    }
}

mod flume {
    use super::*;
    type SenderOf = hotpath::wrap::flume::Sender<u64>;
    type ReceiverOf = hotpath::wrap::flume::Receiver<u64>;
    sync_script!(
        Fl,
        3,
        hotpath::channel!(::flume::bounded::<u64>(3), label = "diff-flume"),
        status = |tx, rx| format!(
            "{:?} {:?}",
            tx.map(|t| (
                t.len(),
                t.is_full(),
                t.is_disconnected(),
                t.sender_count(),
                t.receiver_count()
            )),
            rx.map(|r| (r.len(), r.is_empty(), r.capacity()))
        )
    );

    #[test]
    fn flume_bounded_is_transparent() {
        check("flume_bounded", run(SEED, OPS, make));
    }
}

mod async_channel {
    use super::*;
    struct Ac {
        tx: Option<hotpath::wrap::async_channel::Sender<u64>>,
        rx: Option<hotpath::wrap::async_channel::Receiver<u64>>,
    }
    impl Script for Ac {
        fn capacity(&self) -> usize {
            3
        }
        fn try_send(&mut self, v: u64) -> String {
            d(self.tx.as_ref().unwrap().try_send(v))
        }
        fn send(&mut self, v: u64) -> String {
            d(self.tx.as_ref().unwrap().send(v).now_or_never())
        }
        fn try_recv(&mut self) -> String {
            d(self.rx.as_ref().unwrap().try_recv())
        }
        fn recv(&mut self) -> String {
            d(self.rx.as_ref().unwrap().recv().now_or_never())
        }
        fn status(&mut self) -> String {
            format!(
                "{:?} {:?}",
                self.tx
                    .as_ref()
                    .map(|t| (t.len(), t.is_full(), t.is_closed(), t.sender_count())),
                self.rx
                    .as_ref()
                    .map(|r| (r.len(), r.is_empty(), r.capacity(), r.receiver_count()))
            )
        }
        fn drop_sender(&mut self) {
            self.tx = None;
        }
        fn drop_receiver(&mut self) {
            self.rx = None;
        }
    }

    #[test]
    fn async_channel_bounded_is_transparent() {
        let make = || {
            let (tx, rx) = hotpath::channel!(
                ::async_channel::bounded::<u64>(3),
                label = "diff-async-channel"
            );
            Ac {
                tx: Some(tx),
                rx: Some(rx),
            }
        };
        check("async_channel_bounded", run(SEED, OPS, make));
    }
}

mod tokio_mpsc {
    use super::*;
    struct Tk {
        tx: Option<hotpath::wrap::tokio::sync::mpsc::Sender<u64>>,
        rx: Option<hotpath::wrap::tokio::sync::mpsc::Receiver<u64>>,
    }
    impl Script for Tk {
        fn capacity(&self) -> usize {
            3
        }
        fn try_send(&mut self, v: u64) -> String {
            d(self.tx.as_ref().unwrap().try_send(v))
        }
        fn send(&mut self, v: u64) -> String {
            d(self.tx.as_ref().unwrap().send(v).now_or_never())
        }
        fn try_recv(&mut self) -> String {
            d(self.rx.as_mut().unwrap().try_recv())
        }
        fn recv(&mut self) -> String {
            d(self.rx.as_mut().unwrap().recv().now_or_never())
        }
        fn status(&mut self) -> String {
            format!(
                "{:?} {:?}",
                self.tx.as_ref().map(|t| (
                    t.capacity(),
                    t.max_capacity(),
                    t.is_closed(),
                    t.strong_count()
                )),
                self.rx
                    .as_ref()
                    .map(|r| (r.len(), r.is_empty(), r.is_closed()))
            )
        }
        fn drop_sender(&mut self) {
            self.tx = None;
        }
        fn drop_receiver(&mut self) {
            self.rx = None;
        }
    }

    #[test]
    fn tokio_mpsc_channel_is_transparent() {
        let make = || {
            let (tx, rx) =
                hotpath::channel!(tokio::sync::mpsc::channel::<u64>(3), label = "diff-tokio");
            Tk {
                tx: Some(tx),
                rx: Some(rx),
            }
        };
        check("tokio_mpsc_channel", run(SEED, OPS, make));
    }
}

mod futures_mpsc {
    use super::*;
    struct Fu {
        tx: Option<hotpath::wrap::futures_channel::mpsc::Sender<u64>>,
        rx: Option<hotpath::wrap::futures_channel::mpsc::Receiver<u64>>,
    }
    impl Script for Fu {
        fn capacity(&self) -> usize {
            // The buffer plus one slot for the one sender.
            4
        }
        fn try_send(&mut self, v: u64) -> String {
            d(self.tx.as_mut().unwrap().try_send(v))
        }
        fn send(&mut self, v: u64) -> String {
            use futures_util::SinkExt;
            d(self.tx.as_mut().unwrap().send(v).now_or_never())
        }
        fn try_recv(&mut self) -> String {
            d(self.rx.as_mut().unwrap().try_recv())
        }
        fn recv(&mut self) -> String {
            d(self.rx.as_mut().unwrap().recv().now_or_never())
        }
        fn status(&mut self) -> String {
            d(self.tx.as_ref().map(|t| t.is_closed()))
        }
        fn drop_sender(&mut self) {
            self.tx = None;
        }
        fn drop_receiver(&mut self) {
            self.rx = None;
        }
    }

    #[test]
    fn futures_mpsc_channel_is_transparent() {
        let make = || {
            let (tx, rx) = hotpath::channel!(
                futures_channel::mpsc::channel::<u64>(3),
                label = "diff-futures"
            );
            Fu {
                tx: Some(tx),
                rx: Some(rx),
            }
        };
        check("futures_mpsc_channel", run(SEED, OPS, make));
    }
}
