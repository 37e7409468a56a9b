//! The transparent wrapper and its trait implementations.

use std::io::{self, BufRead, IoSlice, IoSliceMut, Read, Seek, SeekFrom, Write};
use std::ops::{Deref, DerefMut};

use crate::op::{sync_op, Dir, InFlight, Outcome};

use crate::IoEntry;

pin_project_lite::pin_project! {
    /// A reader, writer or stream that counts its operations; otherwise exactly `T`.
    ///
    /// Implements every one of `Read`, `Write`, `BufRead`, `Seek` (and with the `tokio`
    /// or `futures-io` feature the async traits) that `T` implements, delegating each
    /// method. Derefs to `T`.
    pub struct Instrumented<T> {
        #[pin]
        inner: T,
        entry: &'static IoEntry,
        read: InFlight,
        write: InFlight,
        flush: InFlight,
        shutdown: InFlight,
        seek: InFlight,
    }
}

impl<T> Instrumented<T> {
    /// Wraps `inner`, counting into `entry`.
    pub fn new(inner: T, entry: &'static IoEntry) -> Self {
        Instrumented {
            inner,
            entry,
            read: InFlight::default(),
            write: InFlight::default(),
            flush: InFlight::default(),
            shutdown: InFlight::default(),
            seek: InFlight::default(),
        }
    }

    /// The wrapped value.
    pub fn inner(&self) -> &T {
        &self.inner
    }

    /// The wrapped value, mutably (operations made through it are not counted).
    pub fn inner_mut(&mut self) -> &mut T {
        &mut self.inner
    }

    /// The wrapped value, unwrapped.
    pub fn into_inner(self) -> T {
        self.inner
    }

    /// The entry this wrapper counts into.
    pub fn entry(&self) -> &'static IoEntry {
        self.entry
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Instrumented<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Instrumented")
            .field("inner", &self.inner)
            .field("io", &self.entry.name)
            .finish()
    }
}

impl<T> Deref for Instrumented<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.inner
    }
}

impl<T> DerefMut for Instrumented<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.inner
    }
}

fn n(v: &usize) -> u64 {
    *v as u64
}

fn zero<T>(_: &T) -> u64 {
    0
}

impl<T: Read> Read for Instrumented<T> {
    #[inline]
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let inner = &mut self.inner;
        sync_op(self.entry.read, Dir::Read, n, || inner.read(buf))
    }

    #[inline]
    fn read_vectored(&mut self, bufs: &mut [IoSliceMut<'_>]) -> io::Result<usize> {
        let inner = &mut self.inner;
        sync_op(self.entry.read, Dir::Read, n, || inner.read_vectored(bufs))
    }
}

impl<T: Write> Write for Instrumented<T> {
    #[inline]
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let inner = &mut self.inner;
        sync_op(self.entry.write, Dir::Write, n, || inner.write(buf))
    }

    #[inline]
    fn write_vectored(&mut self, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
        let inner = &mut self.inner;
        sync_op(self.entry.write, Dir::Write, n, || {
            inner.write_vectored(bufs)
        })
    }

    #[inline]
    fn flush(&mut self) -> io::Result<()> {
        let inner = &mut self.inner;
        sync_op(self.entry.flush, Dir::Other, zero, || inner.flush())
    }
}

impl<T: BufRead> BufRead for Instrumented<T> {
    /// One read operation of 0 bytes; [`consume`](BufRead::consume) adds the bytes taken.
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        let site = self.entry.read;
        let mut op = InFlight::default();
        let inner = &mut self.inner;
        let (r, outer) = op.poll(|| inner.fill_buf());
        op.finish(site, Dir::Read, Outcome::of(&r, |_| 0), outer);
        r
    }

    fn consume(&mut self, amt: usize) {
        crate::op::add_bytes(self.entry.read, Dir::Read, amt as u64);
        self.inner.consume(amt)
    }

    fn read_until(&mut self, byte: u8, buf: &mut Vec<u8>) -> io::Result<usize> {
        let inner = &mut self.inner;
        sync_op(self.entry.read, Dir::Read, n, || {
            inner.read_until(byte, buf)
        })
    }

    fn read_line(&mut self, buf: &mut String) -> io::Result<usize> {
        let inner = &mut self.inner;
        sync_op(self.entry.read, Dir::Read, n, || inner.read_line(buf))
    }
}

impl<T: Seek> Seek for Instrumented<T> {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        let inner = &mut self.inner;
        sync_op(self.entry.seek, Dir::Other, zero, || inner.seek(pos))
    }
}

/// The methods tokio's and futures-io's `AsyncWrite` share, each one operation of its
/// direction polled through [`poll_op`](crate::op::poll_op): `poll_write`,
/// `poll_write_vectored`, `poll_flush` and the shutdown, `$close` (tokio's
/// `poll_shutdown`, futures-io's `poll_close`). Written inside each trait's `impl`.
#[cfg(any(feature = "tokio", feature = "futures-io"))]
macro_rules! async_write_methods {
    ($close:ident) => {
        fn poll_write(
            self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            buf: &[u8],
        ) -> Poll<io::Result<usize>> {
            let this = self.project();
            let inner = this.inner;
            poll_op(this.entry.write, Dir::Write, this.write, n, || {
                inner.poll_write(cx, buf)
            })
        }

        fn poll_write_vectored(
            self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            bufs: &[io::IoSlice<'_>],
        ) -> Poll<io::Result<usize>> {
            let this = self.project();
            let inner = this.inner;
            poll_op(this.entry.write, Dir::Write, this.write, n, || {
                inner.poll_write_vectored(cx, bufs)
            })
        }

        fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
            let this = self.project();
            let inner = this.inner;
            poll_op(this.entry.flush, Dir::Other, this.flush, zero, || {
                inner.poll_flush(cx)
            })
        }

        fn $close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
            let this = self.project();
            let inner = this.inner;
            poll_op(this.entry.shutdown, Dir::Other, this.shutdown, zero, || {
                inner.$close(cx)
            })
        }
    };
}

/// `AsyncBufRead` (tokio's or futures-io's, `$tr`), the same for both: `poll_fill_buf` is
/// a read of 0 bytes, `consume` adds the bytes taken.
#[cfg(any(feature = "tokio", feature = "futures-io"))]
macro_rules! async_buf_read {
    ($tr:ident) => {
        impl<T: $tr> $tr for Instrumented<T> {
            fn poll_fill_buf(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
            ) -> Poll<io::Result<&[u8]>> {
                let this = self.project();
                let inner = this.inner;
                let (r, outer) = this.read.poll(|| inner.poll_fill_buf(cx));
                if let Poll::Ready(res) = &r {
                    this.read
                        .finish(this.entry.read, Dir::Read, Outcome::of(res, |_| 0), outer);
                }
                r
            }

            fn consume(self: Pin<&mut Self>, amt: usize) {
                let this = self.project();
                crate::op::add_bytes(this.entry.read, Dir::Read, amt as u64);
                this.inner.consume(amt)
            }
        }
    };
}

#[cfg(feature = "tokio")]
mod tokio_impls {
    use std::io;
    use std::pin::Pin;
    use std::task::{Context, Poll};

    use crate::op::{poll_op, Dir, Outcome};
    use tokio::io::{AsyncBufRead, AsyncRead, AsyncSeek, AsyncWrite, ReadBuf};

    use super::{n, zero, Instrumented};

    impl<T: AsyncRead> AsyncRead for Instrumented<T> {
        fn poll_read(
            self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            buf: &mut ReadBuf<'_>,
        ) -> Poll<io::Result<()>> {
            let this = self.project();
            let before = buf.filled().len();
            let inner = this.inner;
            poll_op(this.entry.read, Dir::Read, this.read, n, || {
                inner
                    .poll_read(cx, buf)
                    .map(|r| r.map(|()| buf.filled().len() - before))
            })
            .map(|r| r.map(|_| ()))
        }
    }

    impl<T: AsyncWrite> AsyncWrite for Instrumented<T> {
        async_write_methods!(poll_shutdown);

        fn is_write_vectored(&self) -> bool {
            self.inner.is_write_vectored()
        }
    }

    async_buf_read!(AsyncBufRead);

    impl<T: AsyncSeek> AsyncSeek for Instrumented<T> {
        fn start_seek(self: Pin<&mut Self>, position: io::SeekFrom) -> io::Result<()> {
            let this = self.project();
            let inner = this.inner;
            let (r, outer) = this.seek.poll(|| inner.start_seek(position));
            if r.is_err() {
                this.seek
                    .finish(this.entry.seek, Dir::Other, Outcome::of(&r, zero), outer);
            }
            r
        }

        fn poll_complete(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
            let this = self.project();
            let inner = this.inner;
            poll_op(this.entry.seek, Dir::Other, this.seek, zero, || {
                inner.poll_complete(cx)
            })
        }
    }
}

#[cfg(feature = "futures-io")]
mod futures_impls {
    use std::io;
    use std::pin::Pin;
    use std::task::{Context, Poll};

    use crate::op::{poll_op, Dir, Outcome};
    use futures_io::{AsyncBufRead, AsyncRead, AsyncSeek, AsyncWrite};

    use super::{n, zero, Instrumented};

    impl<T: AsyncRead> AsyncRead for Instrumented<T> {
        fn poll_read(
            self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            buf: &mut [u8],
        ) -> Poll<io::Result<usize>> {
            let this = self.project();
            let inner = this.inner;
            poll_op(this.entry.read, Dir::Read, this.read, n, || {
                inner.poll_read(cx, buf)
            })
        }

        fn poll_read_vectored(
            self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            bufs: &mut [io::IoSliceMut<'_>],
        ) -> Poll<io::Result<usize>> {
            let this = self.project();
            let inner = this.inner;
            poll_op(this.entry.read, Dir::Read, this.read, n, || {
                inner.poll_read_vectored(cx, bufs)
            })
        }
    }

    impl<T: AsyncWrite> AsyncWrite for Instrumented<T> {
        async_write_methods!(poll_close);
    }

    async_buf_read!(AsyncBufRead);

    impl<T: AsyncSeek> AsyncSeek for Instrumented<T> {
        fn poll_seek(
            self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            pos: io::SeekFrom,
        ) -> Poll<io::Result<u64>> {
            let this = self.project();
            let inner = this.inner;
            poll_op(this.entry.seek, Dir::Other, this.seek, zero, || {
                inner.poll_seek(cx, pos)
            })
        }
    }
}
