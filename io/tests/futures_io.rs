//! The futures-io traits.
#![cfg(feature = "futures-io")]

mod common;

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use common::obe;
use futures_io::{AsyncRead, AsyncWrite};
use hotpath_io::{wrap, IoSite};

/// Pending on every other poll, then 4 bytes.
struct Flaky(bool);

impl AsyncRead for Flaky {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.0 = !self.0;
        if self.0 {
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        buf[..4].fill(1);
        Poll::Ready(Ok(4))
    }
}

fn block_on<T>(mut f: impl FnMut(&mut Context<'_>) -> Poll<T>) -> T {
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = f(&mut cx) {
            return v;
        }
    }
}

#[test]
fn futures_io_read_and_write() {
    static R: IoSite = IoSite::new(file!(), line!(), Some("futures read"), false);
    static W: IoSite = IoSite::new(file!(), line!(), Some("futures write"), false);
    let mut r = wrap(Flaky(false), &R);
    let mut buf = [0u8; 8];
    for _ in 0..3 {
        assert_eq!(
            block_on(|cx| Pin::new(&mut r).poll_read(cx, &mut buf)).unwrap(),
            4
        );
    }
    assert_eq!(obe(r.entry().read), (3, 12, 0));

    let mut w = wrap(futures_io_cursor(), &W);
    assert_eq!(
        block_on(|cx| Pin::new(&mut w).poll_write(cx, b"hello")).unwrap(),
        5
    );
    block_on(|cx| Pin::new(&mut w).poll_flush(cx)).unwrap();
    block_on(|cx| Pin::new(&mut w).poll_close(cx)).unwrap();
    assert_eq!(obe(w.entry().write), (1, 5, 0));
    assert_eq!(obe(w.entry().flush), (1, 0, 0));
    assert_eq!(obe(w.entry().shutdown), (1, 0, 0));
    assert_eq!(w.into_inner().0, b"hello");
}

/// A minimal futures-io writer into a Vec.
struct VecWriter(Vec<u8>);

fn futures_io_cursor() -> VecWriter {
    VecWriter(Vec::new())
}

impl AsyncWrite for VecWriter {
    fn poll_write(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.0.extend_from_slice(buf);
        Poll::Ready(Ok(buf.len()))
    }
    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
    fn poll_close(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}
