//! futures-channel: `mpsc::channel(n)`, `mpsc::unbounded()` and `oneshot::channel()`.

pub mod mpsc;
pub mod oneshot;
