//! Calls driven from outside the program's code: a `tracing` span measured as one call
//! of a site. A span is created, entered and exited any number of times (on any thread,
//! on several at once), and closed; it is measured as an `async fn` is
//! ([`crate::MeasuredFuture`]): each enter is a frame on the entering thread's stack (a
//! poll), so measured functions and other spans inside it are its children and what
//! the meters count inside it is its own; the call is recorded when the span closes,
//! on the closing thread, with its wall time from creation, its enters as polls, its
//! busy time (time entered) and self time (time entered less measured children).

use crate::future::{self, State, TIMED};
use crate::registry;
use crate::scope::{self, pop, Entered};
use crate::site::CallSite;
use crate::stacks::{FOLDED, TRACE};
use crate::trace::Kind;

/// One span of a site, from its creation to its close.
pub struct SpanCall {
    site: &'static CallSite,
    st: State,
}

const _: () = {
    const fn shared<T: Send + Sync>() {}
    shared::<SpanCall>();
    shared::<SpanEnter>();
};

impl std::fmt::Debug for SpanCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SpanCall")
            .field("site", &self.site.name())
            .field("enters", &self.st.polls)
            .finish()
    }
}

/// An enter of a span in progress: its frame, on the thread that entered.
pub struct SpanEnter(Entered);

impl std::fmt::Debug for SpanEnter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SpanEnter")
    }
}

impl SpanEnter {
    /// Whether this enter was made on the calling thread.
    pub fn is_here(&self) -> bool {
        registry::is_current(self.0.shard)
    }
}

impl SpanCall {
    /// A call of `site` starting now (a span created). Pushes nothing: what runs until
    /// the span is entered (the span's own creation included) belongs to the caller.
    pub fn new(site: &'static CallSite) -> SpanCall {
        SpanCall {
            site,
            st: State {
                mode: TIMED,
                first: crate::clock::now(),
                ..State::default()
            },
        }
    }

    /// Enters the span on the calling thread: a frame of its site on top of the stack.
    /// `None` when the thread cannot record (its thread-locals are being destroyed, or
    /// the call-site limit is reached).
    pub fn enter(&mut self) -> Option<SpanEnter> {
        if self.st.mode != TIMED {
            return None;
        }
        let e = scope::enter_timed(self.site, self.st.path)?;
        if self.st.polls == 0 && self.st.extra == 0 {
            // The first enter's path (stacks on): later enters push it, the call
            // records on it.
            self.st.path = e.path();
            self.st.extra = e.extra;
        }
        // The call began at the span's creation: an operation resumed in this enter
        // is charged to it from then at most.
        future::call_started(&e, self.st.first);
        Some(SpanEnter(e))
    }

    /// Exits an enter (on any thread: one other than the entering thread marks the frame
    /// for its owner to discard, and the enter then counts its time as self time).
    pub fn exit(&mut self, enter: SpanEnter) {
        let e = enter.0;
        let Some(left) = pop(&e, scope::now(e.tsc)) else {
            return;
        };
        if self.st.polls == 0 {
            // Whether a frame of the same site was below the first enter: recursion
            // counts once.
            self.st.outer = left.outer;
        }
        self.st.polls += 1;
        self.st.busy += left.incl;
        self.st.self_busy += left.self_;
        if left.own {
            self.st.awaited += future::awaited(&e);
        }
        self.st.m_incl = self.st.m_incl.plus(left.m_incl);
        self.st.m_self = self.st.m_self.plus(left.m_self);
        if e.extra & TRACE != 0 {
            future::poll_extras(&e, &left, false, self.st.first, 0, 0);
        }
    }

    /// Closes the span: records it as one call on the calling thread, wall time from its
    /// creation. A span never entered is a call of busy time 0.
    pub fn close(mut self) {
        if std::mem::replace(&mut self.st.mode, future::DONE) != TIMED {
            return;
        }
        let Some(here) = registry::current() else {
            return;
        };
        let Some(slot) = here.slot(self.site.id()) else {
            return;
        };
        let end = crate::clock::now();
        let outer = if self.st.polls == 0 {
            !slot.is_active()
        } else {
            self.st.outer
        };
        self.st.record(slot, end, outer);
        let wall = end.saturating_sub(self.st.first);
        // As an awaited child future does: the poll this span closes in (an async
        // parent awaiting an `#[instrument]`ed future) waited for the time the span was
        // not entered; a synchronous parent does not read it.
        if let Some(parent) = here.stack.innermost() {
            let suspended = wall.saturating_sub(self.st.busy);
            future::add_awaited_to(parent, self.site.id(), suspended, self.st.awaited);
        }
        if let Some(path) = self.st.path {
            here.tree.record_call(
                path,
                wall,
                self.st.self_busy,
                self.st.m_self.cpu_ns(),
                self.st.extra & FOLDED != 0,
            );
        }
        if self.st.extra & TRACE != 0 {
            here.ring
                .write(self.site.id(), Kind::Async, self.st.first, end);
        }
    }
}
