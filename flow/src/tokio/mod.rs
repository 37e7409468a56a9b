//! tokio's channels: `mpsc` (bounded and unbounded), `oneshot`, `broadcast`, `watch`.
//!
//! Async sends and receives poll the raw futures exactly as the raw endpoints would
//! (tokio's cooperative budget included); a send counts as blocked when it returned
//! `Pending` while the channel had no free slot. Queue depth: from the instance's
//! counters for `mpsc` and `oneshot`, from `Sender::len()` for `broadcast`.

pub mod broadcast;
pub mod mpsc;
pub mod oneshot;
pub mod watch;
