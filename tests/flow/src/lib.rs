//! The differential harness: one seeded script of channel operations, run against a
//! channel through a small interface, writing one line per operation result. The same
//! script with the same seed gives byte-identical logs with the `hotpath` feature off
//! and on (the tests compare the log with one committed in `tests/golden/`, so both
//! builds must produce it).

use std::fmt::Write as _;

/// A channel under test: each method does one operation and returns its result as
/// text (`Debug` of what the endpoint returned). `send` and `recv` are only called
/// when the script's model says they will not wait forever.
pub trait Script {
    /// Capacity the model uses (messages that fit before a send would wait).
    fn capacity(&self) -> usize;
    /// A non-blocking send.
    fn try_send(&mut self, v: u64) -> String;
    /// A send that may wait (called with room, or with the receiver gone).
    fn send(&mut self, v: u64) -> String;
    /// A non-blocking receive.
    fn try_recv(&mut self) -> String;
    /// A receive that may wait (called with a message queued, or the senders gone).
    fn recv(&mut self) -> String;
    /// Queries that do not change the channel (`len`, `is_full`, `is_closed`, ...).
    fn status(&mut self) -> String;
    /// Drops the sending side (the channel closes).
    fn drop_sender(&mut self);
    /// Drops the receiving side.
    fn drop_receiver(&mut self);
}

/// Whether an operation's result says it sent or received a message (`Ok(..)`, or an
/// async operation's `Some(Ok(..))` / `Some(Some(..))`).
fn done(out: &str) -> bool {
    out.starts_with("Ok") || out.starts_with("Some(Ok") || out.starts_with("Some(Some")
}

/// xorshift64*, seeded: the script's only source of choices.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// Runs `ops` operations chosen by `seed` on channels made by `make` (a new one after
/// each closed one), and returns the log.
pub fn run<C: Script>(seed: u64, ops: usize, mut make: impl FnMut() -> C) -> String {
    let mut rng = Rng(seed | 1);
    let mut log = String::new();
    let mut ch = make();
    let mut queued = 0usize;
    let (mut tx_alive, mut rx_alive) = (true, true);
    for i in 0..ops {
        let r = rng.next() % 100;
        let v = rng.next() % 1000;
        let (op, out) = match r {
            0..=29 if tx_alive => {
                let out = ch.try_send(v);
                if done(&out) && rx_alive {
                    queued += 1;
                }
                ("try_send", out)
            }
            30..=44 if tx_alive && (queued < ch.capacity() || !rx_alive) => {
                let out = ch.send(v);
                if done(&out) && rx_alive {
                    queued += 1;
                }
                ("send", out)
            }
            45..=69 if rx_alive => {
                let out = ch.try_recv();
                if done(&out) {
                    queued = queued.saturating_sub(1);
                }
                ("try_recv", out)
            }
            70..=84 if rx_alive && (queued > 0 || !tx_alive) => {
                let out = ch.recv();
                if done(&out) {
                    queued = queued.saturating_sub(1);
                }
                ("recv", out)
            }
            85..=94 => ("status", ch.status()),
            95 if tx_alive => {
                ch.drop_sender();
                tx_alive = false;
                ("drop_sender", String::new())
            }
            96 if rx_alive => {
                ch.drop_receiver();
                rx_alive = false;
                queued = 0;
                ("drop_receiver", String::new())
            }
            _ if !tx_alive || !rx_alive => {
                ch = make();
                queued = 0;
                tx_alive = true;
                rx_alive = true;
                ("new_channel", String::new())
            }
            _ => ("status", ch.status()),
        };
        let _ = writeln!(log, "{i} {op} {v} -> {out}");
    }
    log
}
