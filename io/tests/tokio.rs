//! tokio's async traits: operations from first poll to Ready, Pending is not an
//! operation, a cancelled operation is resumed by the next one.
#![cfg(feature = "tokio")]

mod common;

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use common::{dir, obe};
use hotpath_io::{wrap, IoSite};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};

macro_rules! site {
    ($label:expr) => {{
        static S: IoSite = IoSite::new(file!(), line!(), Some($label), false);
        &S
    }};
}

/// Ready only once `at` has passed; `n` bytes per read, then errors as scripted.
/// A reader that is Pending until `delay` after its first poll (or until `at`, once set),
/// then answers `results` in order.
struct Gate {
    delay: Duration,
    at: Option<Instant>,
    n: usize,
    results: Vec<io::Result<usize>>,
}

impl AsyncRead for Gate {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let delay = self.delay;
        let at = *self.at.get_or_insert_with(|| Instant::now() + delay);
        if Instant::now() < at {
            let waker = cx.waker().clone();
            std::thread::spawn(move || {
                std::thread::sleep(at.saturating_duration_since(Instant::now()));
                waker.wake();
            });
            return Poll::Pending;
        }
        match self.results.remove(0) {
            Ok(n) => {
                buf.put_slice(&vec![9u8; n.min(self.n)]);
                Poll::Ready(Ok(()))
            }
            Err(e) => Poll::Ready(Err(e)),
        }
    }
}

fn duration_max_ns(site: &'static hotpath_core::CallSite) -> u64 {
    hotpath_core::snapshot()
        .sites
        .into_iter()
        .find(|s| std::ptr::eq(s.site, site))
        .unwrap()
        .max_ns
}

#[tokio::test]
async fn an_operation_runs_from_first_poll_to_ready() {
    let gate = Gate {
        delay: Duration::from_millis(30),
        at: None,
        n: 5,
        results: vec![Ok(5)],
    };
    let mut r = wrap(gate, site!("gated"));
    let mut buf = [0u8; 8];
    assert_eq!(r.read(&mut buf).await.unwrap(), 5);
    // Several polls, one operation, and its duration includes the wait for readiness.
    assert_eq!(obe(r.entry().read), (1, 5, 0));
    assert!(duration_max_ns(r.entry().read) >= 30_000_000);
}

#[tokio::test]
async fn errors_and_would_block_on_the_async_side() {
    let script = vec![
        Ok(3),
        Err(io::Error::from(io::ErrorKind::WouldBlock)),
        Err(io::Error::other("boom")),
        Ok(2),
    ];
    let mut r = wrap(
        Gate {
            delay: Duration::ZERO,
            at: None,
            n: 8,
            results: script,
        },
        site!("async-script"),
    );
    let mut buf = [0u8; 8];
    assert_eq!(r.read(&mut buf).await.unwrap(), 3);
    assert_eq!(
        r.read(&mut buf).await.unwrap_err().kind(),
        io::ErrorKind::WouldBlock
    );
    assert_eq!(r.read(&mut buf).await.unwrap_err().to_string(), "boom");
    assert_eq!(r.read(&mut buf).await.unwrap(), 2);
    assert_eq!(obe(r.entry().read), (2, 5, 1));
}

#[tokio::test]
async fn a_cancelled_read_is_resumed_by_the_next_one() {
    // Closed until the test opens it, so a slow machine cannot open it early.
    let gate = Gate {
        delay: Duration::from_secs(3600),
        at: None,
        n: 4,
        results: vec![Ok(4)],
    };
    let mut r = wrap(gate, site!("cancelled"));
    let mut buf = [0u8; 8];
    // Poll once (Pending), then give up: nothing is an operation yet.
    let gave_up = tokio::time::timeout(Duration::from_millis(5), r.read(&mut buf)).await;
    assert!(gave_up.is_err());
    assert_eq!(obe(r.entry().read), (0, 0, 0));
    r.inner_mut().at = Some(Instant::now() + Duration::from_millis(40));
    // The next read resumes the pending span: one operation, timed from the first poll.
    assert_eq!(r.read(&mut buf).await.unwrap(), 4);
    assert_eq!(obe(r.entry().read), (1, 4, 0));
    assert!(duration_max_ns(r.entry().read) >= 40_000_000);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokio_tcp_echo_with_flush_and_shutdown() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(async move {
        let (s, _) = listener.accept().await.unwrap();
        let mut s = wrap(s, site!("tokio-echo-server"));
        let mut buf = vec![0u8; 4096];
        loop {
            let n = s.read(&mut buf).await.unwrap();
            if n == 0 {
                break;
            }
            s.write_all(&buf[..n]).await.unwrap();
        }
        s.shutdown().await.unwrap();
        s.entry()
    });
    let mut c = wrap(
        tokio::net::TcpStream::connect(addr).await.unwrap(),
        site!("tokio-echo-client"),
    );
    let msg: Vec<u8> = (0..5000u32).map(|i| (i % 256) as u8).collect();
    for chunk in msg.chunks(500) {
        c.write_all(chunk).await.unwrap();
    }
    c.flush().await.unwrap();
    c.shutdown().await.unwrap();
    let mut back = Vec::new();
    c.read_to_end(&mut back).await.unwrap();
    assert_eq!(back, msg);
    let s = server.await.unwrap();
    let e = c.entry();
    assert_eq!(obe(e.write), (10, 5000, 0));
    assert_eq!(obe(e.flush), (1, 0, 0));
    assert_eq!(obe(e.shutdown), (1, 0, 0));
    assert_eq!(obe(e.read).1, 5000);
    assert_eq!(
        (obe(s.read).1, obe(s.write).1, obe(s.shutdown).0),
        (5000, 5000, 1)
    );
    // Reads that found no data yet were Pending, not operations: at most one per write
    // plus the end of stream, so fewer than 5000 one-byte reads by far.
    assert!(dir(e.read).ops <= 11, "{:?}", dir(e.read));
}

/// Accepts writes slowly: Pending first, then at most 3 bytes (backpressure).
struct Slow(bool, Vec<u8>);

impl AsyncWrite for Slow {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.0 = !self.0;
        if self.0 {
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        let n = buf.len().min(3);
        self.1.extend_from_slice(&buf[..n]);
        Poll::Ready(Ok(n))
    }
    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Err(io::Error::other("cannot shut down")))
    }
}

#[tokio::test]
async fn backpressure_passes_through() {
    let mut w = wrap(Slow(false, Vec::new()), site!("slow"));
    w.write_all(b"0123456789").await.unwrap();
    assert!(w.shutdown().await.is_err());
    assert_eq!(w.inner().1, b"0123456789");
    // 3 + 3 + 3 + 1 bytes in four short writes; each Pending was not an operation; the
    // failed shutdown is a write-direction error of its own.
    assert_eq!(obe(w.entry().write), (4, 10, 0));
    assert_eq!(obe(w.entry().shutdown), (0, 0, 1));
}
