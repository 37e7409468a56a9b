//! The receive iterators of the backends whose receivers block (std, crossbeam, flume):
//! one generic `Iter`, `TryIter` and `IntoIter` over a receiver's `recv` and
//! `try_recv`. Each backend names them for its receiver (`std_mpsc::Iter<'a, T>` is
//! `Iter<'a, std_mpsc::Receiver<T>>`), so every message they yield is received through
//! the receiver's own measured methods.

/// A receiver the iterators take messages from (`receive_iterators!` implements it).
pub trait Receive {
    /// The message type.
    type Item;
    /// The blocking receive: `None` once the senders are gone.
    fn recv_next(&self) -> Option<Self::Item>;
    /// The non-blocking receive: `None` when there is no message now.
    fn try_recv_next(&self) -> Option<Self::Item>;
}

/// A receiver's `iter`: blocks for each message until the senders are gone.
pub struct Iter<'a, R> {
    rx: &'a R,
}

/// A receiver's `try_iter`: the messages already there.
pub struct TryIter<'a, R> {
    rx: &'a R,
}

/// The owning iterator of a receiver.
pub struct IntoIter<R> {
    rx: R,
}

impl<'a, R> Iter<'a, R> {
    pub(crate) fn new(rx: &'a R) -> Self {
        Iter { rx }
    }
}

impl<'a, R> TryIter<'a, R> {
    pub(crate) fn new(rx: &'a R) -> Self {
        TryIter { rx }
    }
}

impl<R> IntoIter<R> {
    pub(crate) fn new(rx: R) -> Self {
        IntoIter { rx }
    }
}

impl<R: Receive> Iterator for Iter<'_, R> {
    type Item = R::Item;
    fn next(&mut self) -> Option<R::Item> {
        self.rx.recv_next()
    }
}

impl<R: Receive> Iterator for TryIter<'_, R> {
    type Item = R::Item;
    fn next(&mut self) -> Option<R::Item> {
        self.rx.try_recv_next()
    }
}

impl<R: Receive> Iterator for IntoIter<R> {
    type Item = R::Item;
    fn next(&mut self) -> Option<R::Item> {
        self.rx.recv_next()
    }
}

debug_opaque!(Iter<'_>, TryIter<'_>, IntoIter);

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use super::*;

    /// A receiver of the messages it was given: `recv_next` also takes those that
    /// arrive "later" (`later`), `try_recv_next` only those already there (`now`).
    #[derive(Default)]
    struct Script {
        now: RefCell<Vec<u8>>,
        later: RefCell<Vec<u8>>,
    }

    impl Receive for Script {
        type Item = u8;
        fn recv_next(&self) -> Option<u8> {
            let now = self.now.borrow_mut().pop();
            now.or_else(|| self.later.borrow_mut().pop())
        }
        fn try_recv_next(&self) -> Option<u8> {
            self.now.borrow_mut().pop()
        }
    }

    fn script() -> Script {
        Script {
            now: RefCell::new(vec![2, 1]),
            later: RefCell::new(vec![4, 3]),
        }
    }

    #[test]
    fn iter_waits_for_every_message_until_the_senders_are_gone() {
        let rx = script();
        assert_eq!(Iter::new(&rx).collect::<Vec<_>>(), [1, 2, 3, 4]);
    }

    #[test]
    fn try_iter_takes_the_messages_already_there() {
        let rx = script();
        assert_eq!(TryIter::new(&rx).collect::<Vec<_>>(), [1, 2]);
        assert_eq!(Iter::new(&rx).collect::<Vec<_>>(), [3, 4]);
    }

    #[test]
    fn into_iter_owns_the_receiver() {
        assert_eq!(IntoIter::new(script()).collect::<Vec<_>>(), [1, 2, 3, 4]);
        assert_eq!(
            format!("{:?}", IntoIter::new(Script::default())),
            "IntoIter { .. }"
        );
    }
}
