//! `async_lock` locks, measured.
