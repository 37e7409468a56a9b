//! The open connections of the metrics server, at most [`MAX_CONNECTIONS`]: a new one
//! beyond that closes the least recently active.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio::sync::Notify;

/// Open connections served at once; a new one beyond that closes the least recently
/// active.
pub(super) const MAX_CONNECTIONS: usize = 64;

/// The open connections, at most [`MAX_CONNECTIONS`]: a new one beyond that closes the
/// one whose last request is oldest (or that never sent one), so clients that open
/// connections and send nothing cannot lock others out.
#[derive(Default)]
pub(super) struct Connections(Mutex<ConnectionList>);

#[derive(Default)]
struct ConnectionList {
    next_id: u64,
    open: Vec<Connection>,
}

struct Connection {
    id: u64,
    /// When it was opened or last received a request.
    active: Instant,
    close: Arc<Notify>,
}

impl Connections {
    fn lock(&self) -> std::sync::MutexGuard<'_, ConnectionList> {
        // Only the server's one thread takes it; a poisoned list is still a list.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Registers a new connection, closing the least recently active one when full;
    /// returns its id and what tells it to close.
    pub(super) fn open(&self) -> (u64, Arc<Notify>) {
        let mut list = self.lock();
        if list.open.len() >= MAX_CONNECTIONS {
            let oldest =
                (0..list.open.len()).min_by_key(|&i| (list.open[i].active, list.open[i].id));
            if let Some(i) = oldest {
                // A permit is stored if its task is not waiting yet.
                list.open.swap_remove(i).close.notify_one();
            }
        }
        let id = list.next_id;
        list.next_id += 1;
        let close = Arc::new(Notify::new());
        list.open.push(Connection {
            id,
            active: Instant::now(),
            close: close.clone(),
        });
        (id, close)
    }

    /// Marks a request received on connection `id`.
    pub(super) fn active(&self, id: u64) {
        if let Some(c) = self.lock().open.iter_mut().find(|c| c.id == id) {
            c.active = Instant::now();
        }
    }
}

/// A connection's place in [`Connections`], given up when its task ends.
pub(super) struct Entry(pub(super) Arc<Connections>, pub(super) u64);

impl Drop for Entry {
    fn drop(&mut self) {
        let mut list = self.0.lock();
        if let Some(i) = list.open.iter().position(|c| c.id == self.1) {
            list.open.swap_remove(i);
        }
    }
}
