//! Every wrapped endpoint is `Send` and `Sync` exactly when the raw endpoint is, for a
//! message that is `Send` but not `Sync` (`Cell<u8>`) and one that is neither
//! (`Rc<u8>`). With the feature off the aliases are the raw types; with it on they are
//! the wrappers, and must agree.

use std::cell::Cell;
use std::marker::PhantomData;
use std::rc::Rc;

/// `<Probe<T>>::SEND` is the inherent constant when `T: Send`, else the trait's.
struct Probe<T: ?Sized>(PhantomData<T>);

trait NotSend {
    const SEND: bool = false;
}
impl<T: ?Sized> NotSend for Probe<T> {}
impl<T: ?Sized + Send> Probe<T> {
    const SEND: bool = true;
}

struct SyncProbe<T: ?Sized>(PhantomData<T>);

trait NotSync {
    const SYNC: bool = false;
}
impl<T: ?Sized> NotSync for SyncProbe<T> {}
impl<T: ?Sized + Sync> SyncProbe<T> {
    const SYNC: bool = true;
}

macro_rules! traits {
    ($t:ty) => {
        (<Probe<$t>>::SEND, <SyncProbe<$t>>::SYNC)
    };
}

macro_rules! same {
    ($($wrapped:ty => $raw:ty),* $(,)?) => {$(
        assert_eq!(traits!($wrapped), traits!($raw), "{}", stringify!($wrapped));
    )*};
}

macro_rules! for_messages {
    ($check:ident) => {
        $check!(u64);
        $check!(Cell<u8>);
        $check!(Rc<u8>);
    };
}

#[test]
fn std_endpoints() {
    macro_rules! check {
        ($m:ty) => {
            same!(
                hotpath::wrap::std::sync::mpsc::Sender<$m> => std::sync::mpsc::Sender<$m>,
                hotpath::wrap::std::sync::mpsc::SyncSender<$m> => std::sync::mpsc::SyncSender<$m>,
                hotpath::wrap::std::sync::mpsc::Receiver<$m> => std::sync::mpsc::Receiver<$m>,
            );
        };
    }
    for_messages!(check);
}

#[test]
fn tokio_endpoints() {
    macro_rules! check {
        ($m:ty) => {
            same!(
                hotpath::wrap::tokio::sync::mpsc::Sender<$m> => tokio::sync::mpsc::Sender<$m>,
                hotpath::wrap::tokio::sync::mpsc::Receiver<$m> => tokio::sync::mpsc::Receiver<$m>,
                hotpath::wrap::tokio::sync::mpsc::UnboundedSender<$m> => tokio::sync::mpsc::UnboundedSender<$m>,
                hotpath::wrap::tokio::sync::mpsc::UnboundedReceiver<$m> => tokio::sync::mpsc::UnboundedReceiver<$m>,
                hotpath::wrap::tokio::sync::mpsc::WeakSender<$m> => tokio::sync::mpsc::WeakSender<$m>,
                hotpath::wrap::tokio::sync::mpsc::OwnedPermit<$m> => tokio::sync::mpsc::OwnedPermit<$m>,
                hotpath::wrap::tokio::sync::mpsc::Permit<'static, $m> => tokio::sync::mpsc::Permit<'static, $m>,
                hotpath::wrap::tokio::sync::oneshot::Sender<$m> => tokio::sync::oneshot::Sender<$m>,
                hotpath::wrap::tokio::sync::oneshot::Receiver<$m> => tokio::sync::oneshot::Receiver<$m>,
                hotpath::wrap::tokio::sync::broadcast::Sender<$m> => tokio::sync::broadcast::Sender<$m>,
                hotpath::wrap::tokio::sync::broadcast::Receiver<$m> => tokio::sync::broadcast::Receiver<$m>,
                hotpath::wrap::tokio::sync::watch::Sender<$m> => tokio::sync::watch::Sender<$m>,
                hotpath::wrap::tokio::sync::watch::Receiver<$m> => tokio::sync::watch::Receiver<$m>,
            );
        };
    }
    for_messages!(check);
}

#[test]
fn crossbeam_flume_async_channel_and_futures_endpoints() {
    macro_rules! check {
        ($m:ty) => {
            same!(
                hotpath::wrap::crossbeam_channel::Sender<$m> => crossbeam_channel::Sender<$m>,
                hotpath::wrap::crossbeam_channel::Receiver<$m> => crossbeam_channel::Receiver<$m>,
                hotpath::wrap::flume::Sender<$m> => flume::Sender<$m>,
                hotpath::wrap::flume::Receiver<$m> => flume::Receiver<$m>,
                hotpath::wrap::flume::WeakSender<$m> => flume::WeakSender<$m>,
                hotpath::wrap::async_channel::Sender<$m> => async_channel::Sender<$m>,
                hotpath::wrap::async_channel::Receiver<$m> => async_channel::Receiver<$m>,
                hotpath::wrap::futures_channel::mpsc::Sender<$m> => futures_channel::mpsc::Sender<$m>,
                hotpath::wrap::futures_channel::mpsc::Receiver<$m> => futures_channel::mpsc::Receiver<$m>,
                hotpath::wrap::futures_channel::mpsc::UnboundedSender<$m> => futures_channel::mpsc::UnboundedSender<$m>,
                hotpath::wrap::futures_channel::mpsc::UnboundedReceiver<$m> => futures_channel::mpsc::UnboundedReceiver<$m>,
                hotpath::wrap::futures_channel::oneshot::Sender<$m> => futures_channel::oneshot::Sender<$m>,
                hotpath::wrap::futures_channel::oneshot::Receiver<$m> => futures_channel::oneshot::Receiver<$m>,
            );
        };
    }
    for_messages!(check);
}

#[test]
fn streams_and_futures() {
    type S<T> = futures_util::stream::Iter<std::vec::IntoIter<T>>;
    same!(
        hotpath::wrap::Stream<S<Rc<u8>>> => S<Rc<u8>>,
        hotpath::wrap::Stream<S<Cell<u8>>> => S<Cell<u8>>,
        hotpath::wrap::Future<std::future::Ready<Rc<u8>>> => std::future::Ready<Rc<u8>>,
        hotpath::wrap::Future<std::future::Ready<Cell<u8>>> => std::future::Ready<Cell<u8>>,
    );
}

/// `Debug` for any message type, also one without `Debug`.
#[test]
fn endpoints_are_debug_for_any_message() {
    struct NoDebug;
    let (tx, rx) = hotpath::channel!(std::sync::mpsc::channel::<NoDebug>());
    let (ttx, trx) = hotpath::channel!(tokio::sync::mpsc::channel::<NoDebug>(1));
    let (ctx, crx) = hotpath::channel!(crossbeam_channel::unbounded::<NoDebug>());
    for s in [
        format!("{tx:?}"),
        format!("{rx:?}"),
        format!("{ttx:?}"),
        format!("{trx:?}"),
        format!("{ctx:?}"),
        format!("{crx:?}"),
    ] {
        assert!(!s.is_empty());
    }
}

/// With the feature on, an endpoint's `Debug` names its type and its channel's entry
/// (whatever the message type); an iterator, permit or future over it its type.
#[cfg(feature = "hotpath")]
#[test]
fn endpoint_debug_names_the_type_and_the_channel() {
    struct NoDebug;
    let shown = |v: &dyn std::fmt::Debug, ty: &str, entry: &str| {
        assert_eq!(
            format!("{v:?}"),
            format!("{ty} {{ channel: {entry:?}, .. }}")
        );
    };
    let opaque = |v: &dyn std::fmt::Debug, ty: &str| {
        assert_eq!(format!("{v:?}"), format!("{ty} {{ .. }}"));
    };

    let (tx, rx) = hotpath::channel!(std::sync::mpsc::channel::<NoDebug>(), label = "std");
    let (stx, _srx) = hotpath::channel!(
        std::sync::mpsc::sync_channel::<NoDebug>(1),
        label = "std-sync"
    );
    shown(&tx, "Sender", "std");
    shown(&stx, "SyncSender", "std-sync");
    shown(&rx, "Receiver", "std");
    opaque(&rx.iter(), "Iter");
    opaque(&rx.try_iter(), "TryIter");
    drop(tx);
    opaque(&rx.into_iter(), "IntoIter");

    let (tx, rx) = hotpath::channel!(crossbeam_channel::unbounded::<NoDebug>(), label = "cb");
    shown(&tx, "Sender", "cb");
    shown(&rx, "Receiver", "cb");
    opaque(&rx.try_iter(), "TryIter");

    let (tx, rx) = hotpath::channel!(flume::unbounded::<NoDebug>(), label = "fl");
    shown(&tx, "Sender", "fl");
    shown(&tx.downgrade(), "WeakSender", "fl");
    shown(&rx, "Receiver", "fl");
    opaque(&rx.drain(), "Drain");

    let (tx, rx) = hotpath::channel!(async_channel::unbounded::<NoDebug>(), label = "ac");
    shown(&tx, "Sender", "ac");
    shown(&tx.downgrade(), "WeakSender", "ac");
    shown(&rx, "Receiver", "ac");
    shown(&rx.downgrade(), "WeakReceiver", "ac");

    let (tx, rx) = hotpath::channel!(futures_channel::mpsc::channel::<NoDebug>(1), label = "fm");
    let (utx, urx) = hotpath::channel!(futures_channel::mpsc::unbounded::<NoDebug>(), label = "fu");
    shown(&tx, "Sender", "fm");
    shown(&rx, "Receiver", "fm");
    shown(&utx, "UnboundedSender", "fu");
    shown(&urx, "UnboundedReceiver", "fu");
    let (tx, rx) = hotpath::channel!(futures_channel::oneshot::channel::<NoDebug>(), label = "fo");
    shown(&tx, "Sender", "fo");
    shown(&rx, "Receiver", "fo");

    let (tx, rx) = hotpath::channel!(tokio::sync::mpsc::channel::<NoDebug>(2), label = "tm");
    shown(&tx, "Sender", "tm");
    shown(&tx.downgrade(), "WeakSender", "tm");
    shown(&rx, "Receiver", "tm");
    shown(&tx.try_reserve().unwrap(), "Permit", "tm");
    shown(
        &tx.clone().try_reserve_owned().unwrap(),
        "OwnedPermit",
        "tm",
    );
    let (utx, urx) = hotpath::channel!(
        tokio::sync::mpsc::unbounded_channel::<NoDebug>(),
        label = "tu"
    );
    shown(&utx, "UnboundedSender", "tu");
    shown(&utx.downgrade(), "WeakUnboundedSender", "tu");
    shown(&urx, "UnboundedReceiver", "tu");
    let (tx, rx) = hotpath::channel!(tokio::sync::oneshot::channel::<NoDebug>(), label = "to");
    shown(&tx, "Sender", "to");
    shown(&rx, "Receiver", "to");
    let (tx, rx) = hotpath::channel!(tokio::sync::broadcast::channel::<u8>(4), label = "tb");
    shown(&tx, "Sender", "tb");
    shown(&rx, "Receiver", "tb");
    let (tx, rx) = hotpath::channel!(tokio::sync::watch::channel(NoDebug), label = "tw");
    shown(&tx, "Sender", "tw");
    shown(&rx, "Receiver", "tw");
}
