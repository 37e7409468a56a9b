//! `tokio` locks, measured.
