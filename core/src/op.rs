//! Operations of wrapped values: what the wrapper crates (`hotpath-io` today) need from
//! the calling thread's shard to record an operation, without knowing how shards work.
//!
//! An operation belongs to a [`CallSite`] (one per direction or mode of a wrapper site);
//! its counts and durations go into that site's [`Slot`] on the thread that completes
//! it, and its waiting time can be charged to the innermost measured function on that
//! thread ([`Here::innermost`]). Whether it is timed is decided per thread by its
//! [`Sampler`] kind; counts are exact either way.

use crate::holders::Holder;
use crate::registry;
use crate::shard::Shard;
use crate::site::CallSite;
use crate::slot::Slot;

pub use crate::state::Sampler;

/// What a function waited for: each kind of wait the wrappers time is charged to the
/// innermost measured function on the thread that waited ([`Here::charge`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    /// Inside an `io!` operation.
    Io,
    /// For a lock.
    Lock,
    /// To send on a full channel.
    ChannelSend,
    /// To receive from an empty channel.
    ChannelRecv,
    /// In a SQL query.
    Sql,
    /// In an HTTP request.
    Http,
}

/// The calling thread's shard, as the recording side of an operation sees it.
#[derive(Clone, Copy)]
pub struct Here(&'static Shard);

impl std::fmt::Debug for Here {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Here")
    }
}

impl Here {
    /// The calling thread's shard, created on first use and synchronised with the
    /// current session; `None` while the thread's thread-locals are being destroyed.
    #[inline]
    pub fn get() -> Option<Here> {
        registry::current().map(Here)
    }

    /// `shard` as the recording side sees it.
    #[inline(always)]
    pub(crate) fn of(shard: &'static Shard) -> Here {
        Here(shard)
    }

    /// The calling thread's shard if it has one, neither created nor synchronised: for
    /// bookkeeping that is not recorded (nesting).
    #[inline(always)]
    pub fn existing() -> Option<Here> {
        registry::current_raw().map(Here)
    }

    /// A number no other live thread's shard has (its address): lets a wrapper tell
    /// whether the thread that owns a single-writer counter of its own is the calling one.
    /// A shard outlives its thread and may be reused by a later one, never by two at once.
    #[inline(always)]
    pub fn id(self) -> usize {
        self.0 as *const Shard as usize
    }

    /// Whether to time this event of `kind` (sampling); `false` only when the rate says so.
    #[inline(always)]
    pub fn timed(self, kind: Sampler) -> bool {
        self.0.sampling.timed(kind)
    }

    /// Whether to time this event of `kind` at `site`, as the weight it carries: 0 not
    /// timed; 1 timed because every event is (rate 1) or because the site is still in
    /// its warm-up ([`CallSite::warming`]); the sampling period (1/rate) when the
    /// thread's countdown picked it, so that a timed event stands for the untimed ones
    /// around it. Record it with the `_n` methods of [`Slot`].
    #[inline(always)]
    pub fn sample(self, kind: Sampler, site: &'static CallSite) -> u64 {
        self.sample_or_off(kind, site).unwrap_or(0)
    }

    /// [`Here::sample`], but `None` when the rate times no event of `kind` (count only),
    /// so that a caller can tell "not picked" (`Some(0)`) from "never timed" with one
    /// read of the rate.
    #[inline(always)]
    pub fn sample_or_off(self, kind: Sampler, site: &'static CallSite) -> Option<u64> {
        match kind.period() {
            1 => Some(1),
            0 => None,
            p => Some(if site.warming() {
                1
            } else if self.0.sampling.countdown_weighted(kind) {
                p
            } else {
                0
            }),
        }
    }

    /// `site`'s slot on this thread, created on first use; `None` past the call-site limit.
    #[inline(always)]
    pub fn slot(self, site: &'static CallSite) -> Option<&'static Slot> {
        self.0.slot(site.id())
    }

    /// The slot of the call site numbered `id` (as [`CallSite::id`] gave it) on this
    /// thread, created on first use: for wrappers that keep the number rather than the
    /// site.
    #[inline(always)]
    pub fn slot_of(self, id: u32) -> Option<&'static Slot> {
        self.0.slot(id)
    }

    /// The slot of the innermost measured function (or block) on this thread's scope
    /// stack, if one is running: where waits are charged.
    #[inline(always)]
    pub fn innermost(self) -> Option<&'static Slot> {
        self.0.slot(self.0.stack.innermost_site()?)
    }

    /// The part of the span from `start` to `end` (clock readings) inside the current
    /// call of the innermost measured function on this thread: the wait to charge it.
    /// An operation resumed after being abandoned (a read whose future a `select!`
    /// dropped) started before this call did, in another call or in none.
    #[inline(always)]
    pub fn within_call(self, start: u64, end: u64) -> u64 {
        let from = match self.0.stack.innermost() {
            Some(f) => start.max(f.call_start()),
            None => start,
        };
        end.saturating_sub(from)
    }

    /// The id of the innermost measured function (or block) on this thread's scope
    /// stack, or 0 outside every measured function: who a lock acquisition is
    /// attributed to ([`Here::holder`]). One load of the stack.
    #[inline(always)]
    pub fn function_id(self) -> u32 {
        self.0.stack.innermost_site().unwrap_or(0)
    }

    /// This thread's entry for operations of `site` made by the function `function`
    /// (as [`Here::function_id`] gave it), created on first use; `None` once the thread's
    /// table of pairs is full (see [`crate::holders`]).
    #[inline(always)]
    pub fn holder(self, site: &'static CallSite, function: u32) -> Option<&'static Holder> {
        self.0.holders.entry(site.id(), function)
    }

    /// [`Here::holder`] of the call site numbered `id` (as [`CallSite::id`] gave it).
    #[inline(always)]
    pub fn holder_of(self, id: u32, function: u32) -> Option<&'static Holder> {
        self.0.holders.entry(id, function)
    }

    /// Charges `ticks` of waiting of kind `wait` to the innermost measured function on
    /// this thread, if one is running. Wrappers call it once per wait, from the
    /// outermost operation only (see [`Here::nest`]), so a wait is charged once however
    /// many wrappers it goes through.
    #[inline(always)]
    pub fn charge(self, wait: Wait, ticks: u64) {
        if ticks == 0 {
            return;
        }
        if let Some(f) = self.innermost() {
            let c = &f.c;
            match wait {
                Wait::Io => c.fn_io.add(ticks),
                Wait::Lock => c.wait_lock.add(ticks),
                Wait::ChannelSend => c.wait_send.add(ticks),
                Wait::ChannelRecv => c.wait_recv.add(ticks),
                Wait::Sql => c.wait_sql.add(ticks),
                Wait::Http => c.wait_http.add(ticks),
            }
        }
    }

    /// Marks this thread as inside a wrapped operation until the returned guard drops,
    /// and says whether it is the outermost one in progress: an operation a wrapped value
    /// makes on another wrapped value (a wrapped file under a wrapped `BufWriter`) is
    /// counted for its own site but charged to the function once, through the outermost.
    #[inline(always)]
    pub fn nest(this: Option<Here>) -> (Nest, bool) {
        match this {
            Some(Here(s)) => {
                let n = s.op_nest.get();
                s.op_nest.set(n + 1);
                (Nest(Some(s)), n == 0)
            }
            None => (Nest(None), true),
        }
    }

    /// Whether a wrapped operation is in progress on this thread.
    #[inline(always)]
    pub fn in_op(self) -> bool {
        self.0.op_nest.get() != 0
    }
}

/// Inside a wrapped operation while alive (see [`Here::nest`]).
#[must_use = "the operation is in progress until the guard drops"]
pub struct Nest(Option<&'static Shard>);

impl std::fmt::Debug for Nest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Nest")
    }
}

impl Drop for Nest {
    #[inline(always)]
    fn drop(&mut self) {
        if let Some(s) = self.0 {
            s.op_nest.set(s.op_nest.get().saturating_sub(1));
        }
    }
}

/// Current clock reading in ticks (converted to ns in snapshots).
#[inline(always)]
pub fn now() -> u64 {
    crate::clock::now()
}
