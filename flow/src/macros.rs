//! The crate's `macro_rules!` helpers for the endpoint types of every backend.

/// `Debug` for endpoint types holding an `inst`: the type's name and its channel's
/// entry, whatever the message type (`chan::fmt_endpoint`).
macro_rules! debug_endpoints {
    ($($ty:ident $(<$l:lifetime>)?),* $(,)?) => {$(
        impl<T> std::fmt::Debug for $ty<$($l,)? T> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                $crate::chan::fmt_endpoint(f, stringify!($ty), &self.inst)
            }
        }
    )*};
}

/// `Debug` showing only the type's name: iterators and futures whose state is the
/// backend's.
macro_rules! debug_opaque {
    ($($ty:ident $(<$l:lifetime>)?),* $(,)?) => {$(
        impl<T> std::fmt::Debug for $ty<$($l,)? T> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($ty)).finish_non_exhaustive()
            }
        }
    )*};
}

/// `Clone` for endpoints whose clone is the backend's (`inner`) and the instance's
/// (`inst`): senders and weak handles (a receiver's clone also counts a receiver).
macro_rules! clone_endpoints {
    ($($ty:ident),* $(,)?) => {$(
        impl<T> Clone for $ty<T> {
            fn clone(&self) -> Self {
                $ty {
                    inner: self.inner.clone(),
                    inst: self.inst.clone(),
                }
            }
        }
    )*};
}

/// `Clone` for receivers: as [`clone_endpoints!`], and the clone counts one more
/// receiver of the instance (the last one to drop counts what is left unread).
macro_rules! clone_receivers {
    ($($ty:ident),* $(,)?) => {$(
        impl<T> Clone for $ty<T> {
            fn clone(&self) -> Self {
                self.inst.add_receiver();
                $ty {
                    inner: self.inner.clone(),
                    inst: self.inst.clone(),
                }
            }
        }
    )*};
}

/// Methods that only call the same method of the wrapped endpoint and return its
/// answer. `forward! { Sender(inner): fn len(&self) -> usize; ... }` reaches the wrapped
/// endpoint as `self.inner` (`Receiver(rx()):` as `self.rx()`); each method is
/// documented as the one it calls, `` `Sender::len`. ``, or with the one-line note
/// written above it (no final period), `` `Sender::len`: the note. ``. `&self`,
/// `&mut self` and `async fn` (which awaits the wrapped one) take any plain arguments;
/// an argument `other: &Self` is passed on as the other endpoint's wrapped one
/// (`fn same_channel(&self, other: &Self) -> bool;`).
macro_rules! forward {
    ($ty:ident($($inner:tt)+): $($items:tt)*) => {
        forward!(@[$ty $($inner)+] $($items)*);
    };
    (@[$($at:tt)+]) => {};
    (@[$ty:ident $($inner:tt)+] $(#[doc = $note:literal])?
        fn $name:ident(&self, $other:ident: &Self) $(-> $r:ty)?; $($rest:tt)*) => {
        #[doc = concat!("`", stringify!($ty), "::", stringify!($name), "`" $(, ":", $note)?, ".")]
        pub fn $name(&self, $other: &Self) $(-> $r)? {
            self.$($inner)+.$name(&$other.$($inner)+)
        }
        forward!(@[$ty $($inner)+] $($rest)*);
    };
    (@[$ty:ident $($inner:tt)+] $(#[doc = $note:literal])?
        fn $name:ident(&self $(, $a:ident: $t:ty)*) $(-> $r:ty)?; $($rest:tt)*) => {
        #[doc = concat!("`", stringify!($ty), "::", stringify!($name), "`" $(, ":", $note)?, ".")]
        pub fn $name(&self $(, $a: $t)*) $(-> $r)? {
            self.$($inner)+.$name($($a),*)
        }
        forward!(@[$ty $($inner)+] $($rest)*);
    };
    (@[$ty:ident $($inner:tt)+] $(#[doc = $note:literal])?
        fn $name:ident(&mut self $(, $a:ident: $t:ty)*) $(-> $r:ty)?; $($rest:tt)*) => {
        #[doc = concat!("`", stringify!($ty), "::", stringify!($name), "`" $(, ":", $note)?, ".")]
        pub fn $name(&mut self $(, $a: $t)*) $(-> $r)? {
            self.$($inner)+.$name($($a),*)
        }
        forward!(@[$ty $($inner)+] $($rest)*);
    };
    (@[$ty:ident $($inner:tt)+] $(#[doc = $note:literal])?
        async fn $name:ident(&self $(, $a:ident: $t:ty)*) $(-> $r:ty)?; $($rest:tt)*) => {
        #[doc = concat!("`", stringify!($ty), "::", stringify!($name), "`" $(, ":", $note)?, ".")]
        pub async fn $name(&self $(, $a: $t)*) $(-> $r)? {
            self.$($inner)+.$name($($a),*).await
        }
        forward!(@[$ty $($inner)+] $($rest)*);
    };
    (@[$ty:ident $($inner:tt)+] $(#[doc = $note:literal])?
        async fn $name:ident(&mut self $(, $a:ident: $t:ty)*) $(-> $r:ty)?; $($rest:tt)*) => {
        #[doc = concat!("`", stringify!($ty), "::", stringify!($name), "`" $(, ":", $note)?, ".")]
        pub async fn $name(&mut self $(, $a: $t)*) $(-> $r)? {
            self.$($inner)+.$name($($a),*).await
        }
        forward!(@[$ty $($inner)+] $($rest)*);
    };
}

/// A weak handle and its strong endpoint: `Strong::downgrade` and `Weak::upgrade`, both
/// over the same instance (`weak!(WeakSender => Sender)`); with `+ counts`, also the weak
/// handle's `strong_count` and `weak_count` (tokio's: `weak!(WeakSender => Sender +
/// counts)`).
macro_rules! weak {
    ($($weak:ident => $strong:ident $(+ $counts:ident)?),* $(,)?) => {$(
        impl<T> $strong<T> {
            #[doc = concat!("`", stringify!($strong), "::downgrade`.")]
            pub fn downgrade(&self) -> $weak<T> {
                $weak {
                    inner: self.inner.downgrade(),
                    inst: self.inst.clone(),
                }
            }
        }

        impl<T> $weak<T> {
            #[doc = concat!("`", stringify!($weak), "::upgrade`.")]
            pub fn upgrade(&self) -> Option<$strong<T>> {
                self.inner.upgrade().map(|inner| $strong {
                    inner,
                    inst: self.inst.clone(),
                })
            }

            $(weak!(@ $counts $weak);)?
        }
    )*};
    (@ counts $weak:ident) => {
        forward! { $weak(inner):
            fn strong_count(&self) -> usize;
            fn weak_count(&self) -> usize;
        }
    };
}

/// `IntoInstrumented` for a constructor's endpoint pair: the block checks the declared
/// capacity and gives the instance's [`Shape`](crate::instrument::Shape) (the pair bound to
/// `$pair`, the `FlowSite` to `$site`, the constructor's and the declared capacity to
/// the two patterns after it); both endpoints are then wrapped over one new instance,
/// each with the other fields listed after its name. `inner` takes the raw endpoint
/// through `Into` (a receiver may hold it in an `Option`).
macro_rules! instrument {
    (
        impl<T $(: $bound:path)?> for $raw:ty =>
            ($tx:ident $({ $($txf:ident: $txv:expr),* $(,)? })?,
             $rx:ident $({ $($rxf:ident: $rxv:expr),* $(,)? })?),
        |$pair:pat_param, $site:ident, $ctor:pat_param, $declared:pat_param| $shape:expr $(,)?
    ) => {
        impl<T $(: $bound)?> $crate::instrument::IntoInstrumented for $raw {
            type Wrapped = ($tx<T>, $rx<T>);

            fn instrument(
                self,
                $site: &'static $crate::FlowSite,
                $ctor: Option<usize>,
                $declared: Option<usize>,
            ) -> Self::Wrapped {
                let shape = {
                    let $pair = &self;
                    $shape
                };
                let inst = $crate::chan::Inst::new::<T>($site, shape);
                (
                    $tx {
                        inner: self.0.into(),
                        inst: inst.clone(),
                        $($($txf: $txv,)*)?
                    },
                    $rx {
                        inner: self.1.into(),
                        inst,
                        $($($rxf: $rxv,)*)?
                    },
                )
            }
        }
    };
}

/// The receive iterators of a receiver with a blocking `recv` and a `try_recv` (std,
/// crossbeam, flume): `iter`, `try_iter` and `IntoIterator`, through the generic ones
/// of [`crate::iter`], named `Iter`, `TryIter` and `IntoIter` in the calling module.
macro_rules! receive_iterators {
    ($rx:ident) => {
        #[doc = concat!("`", stringify!($rx), "::iter`'s iterator.")]
        pub type Iter<'a, T> = $crate::iter::Iter<'a, $rx<T>>;
        #[doc = concat!("`", stringify!($rx), "::try_iter`'s iterator.")]
        pub type TryIter<'a, T> = $crate::iter::TryIter<'a, $rx<T>>;
        #[doc = concat!("The owning iterator of a `", stringify!($rx), "`.")]
        pub type IntoIter<T> = $crate::iter::IntoIter<$rx<T>>;

        impl<T> $crate::iter::Receive for $rx<T> {
            type Item = T;

            #[inline]
            fn recv_next(&self) -> Option<T> {
                self.recv().ok()
            }

            #[inline]
            fn try_recv_next(&self) -> Option<T> {
                self.try_recv().ok()
            }
        }

        impl<T> $rx<T> {
            #[doc = concat!("`", stringify!($rx), "::iter`: blocks for each message until the senders are gone.")]
            pub fn iter(&self) -> Iter<'_, T> {
                $crate::iter::Iter::new(self)
            }

            #[doc = concat!("`", stringify!($rx), "::try_iter`: the messages already there.")]
            pub fn try_iter(&self) -> TryIter<'_, T> {
                $crate::iter::TryIter::new(self)
            }
        }

        impl<T> IntoIterator for $rx<T> {
            type Item = T;
            type IntoIter = IntoIter<T>;
            fn into_iter(self) -> IntoIter<T> {
                $crate::iter::IntoIter::new(self)
            }
        }

        impl<'a, T> IntoIterator for &'a $rx<T> {
            type Item = T;
            type IntoIter = Iter<'a, T>;
            fn into_iter(self) -> Iter<'a, T> {
                self.iter()
            }
        }
    };
}

/// Endpoint types that are the backend's endpoint and the instance it records into:
/// `endpoints! { /// docs
/// Sender(raw::Sender<Stamped<T>>); }` declares `pub struct Sender<T> { inner, inst }`.
macro_rules! endpoints {
    ($($(#[$m:meta])* $ty:ident($raw:ty);)*) => {$(
        $(#[$m])*
        pub struct $ty<T> {
            inner: $raw,
            inst: hotpath_core::InternalArc<$crate::chan::Inst>,
        }
    )*};
}

/// `From` impls mapping a backend's send and receive results into
/// [`TrySend`](crate::chan::TrySend) and [`TryRecv`](crate::chan::TryRecv), one line each:
///
/// ```ignore
/// outcomes! {
///     SendError(M) => Closed;                                   // Err(SendError(m)): closed
///     TrySendError<M> { Full => Full, Disconnected => Closed }  // a send's error enum
///     recv TryRecvError { Empty => Empty, Disconnected => Closed }
/// }
/// ```
macro_rules! outcomes {
    () => {};
    ($err:ident(M) => Closed; $($rest:tt)*) => {
        impl<M> From<Result<(), $err<M>>> for $crate::chan::TrySend<M> {
            #[inline(always)]
            fn from(r: Result<(), $err<M>>) -> Self {
                match r {
                    Ok(()) => $crate::chan::TrySend::Sent,
                    Err($err(m)) => $crate::chan::TrySend::Closed(m),
                }
            }
        }
        outcomes!($($rest)*);
    };
    ($err:ident<M> { $($v:ident => $o:ident),* $(,)? } $($rest:tt)*) => {
        impl<M> From<Result<(), $err<M>>> for $crate::chan::TrySend<M> {
            #[inline(always)]
            fn from(r: Result<(), $err<M>>) -> Self {
                match r {
                    Ok(()) => $crate::chan::TrySend::Sent,
                    $(Err($err::$v(m)) => $crate::chan::TrySend::$o(m),)*
                }
            }
        }
        outcomes!($($rest)*);
    };
    (recv $err:ident { $($v:ident => $o:ident),* $(,)? } $($rest:tt)*) => {
        impl<M> From<Result<M, $err>> for $crate::chan::TryRecv<M> {
            #[inline(always)]
            fn from(r: Result<M, $err>) -> Self {
                match r {
                    Ok(m) => $crate::chan::TryRecv::Got(m),
                    $(Err($err::$v) => $crate::chan::TryRecv::$o,)*
                }
            }
        }
        outcomes!($($rest)*);
    };
}

/// The sends of a sender with crossbeam's blocking API (std's `SyncSender`, crossbeam,
/// flume; async-channel's `send_blocking` and tokio's `blocking_send`): each tries the
/// backend's `try_send` first and waits (measured) only on a full channel. `len` gives the queue length from `&Self` (read for the depth); the methods
/// listed after it are written, naming the calling module's `SendError`,
/// `TrySendError` and `SendTimeoutError`, whose variants these backends share.
macro_rules! blocking_sends {
    (len: $len:expr; $($method:ident),* $(,)?) => {
        $(blocking_sends!(@ $method, $len);)*
    };
    (@ send, $len:expr) => {
        blocking_sends!(@ waiting send, $len,
            "`send`: waits for room when the channel is full (the wait is measured); fails \
             when the receivers are gone.");
    };
    (@ send_blocking, $len:expr) => {
        blocking_sends!(@ waiting send_blocking, $len,
            "`send_blocking` (outside an async context): as `send`, blocking the thread.");
    };
    (@ blocking_send, $len:expr) => {
        blocking_sends!(@ waiting blocking_send, $len,
            "`blocking_send` (outside an async context): as `send`, blocking the thread.");
    };
    (@ waiting $method:ident, $len:expr, $doc:literal) => {
        #[doc = $doc]
        pub fn $method(&self, msg: T) -> Result<(), SendError<T>> {
            self.inst
                .send_with(
                    msg,
                    |m| self.inner.try_send(m),
                    |m| self.inner.$method(m),
                    || ($len)(self),
                )
                .into_result(SendError, SendError)
        }
    };
    (@ try_send, $len:expr) => {
        /// `try_send`: `Full` when there is no room, neither a send nor an error.
        pub fn try_send(&self, msg: T) -> Result<(), TrySendError<T>> {
            self.inst
                .try_send_with(msg, |m| self.inner.try_send(m), || ($len)(self))
                .into_result(TrySendError::Full, TrySendError::Disconnected)
        }
    };
    (@ send_timeout, $len:expr) => {
        blocking_sends!(@ timed send_timeout(timeout: std::time::Duration), $len,
            "`send_timeout`: a timeout is a blocked send that did not send.");
    };
    (@ send_deadline, $len:expr) => {
        blocking_sends!(@ timed send_deadline(deadline: std::time::Instant), $len,
            "`send_deadline`: as `send_timeout`, until `deadline`.");
    };
    (@ timed $method:ident($limit:ident: $t:ty), $len:expr, $doc:literal) => {
        #[doc = $doc]
        pub fn $method(&self, msg: T, $limit: $t) -> Result<(), SendTimeoutError<T>> {
            self.inst
                .send_with(
                    msg,
                    |m| self.inner.try_send(m),
                    |m| self.inner.$method(m, $limit),
                    || ($len)(self),
                )
                .into_result(SendTimeoutError::Timeout, SendTimeoutError::Disconnected)
        }
    };
}

/// The receives of a receiver with crossbeam's blocking API (std, crossbeam, flume):
/// `try_recv`, and the listed waiting ones, which take a message that is there and
/// wait (charged to the function) only on an empty channel. The backend's receiver is
/// `self.$rx()`; `closed` is the error of `recv` once the senders are gone. They name
/// the calling module's `RecvError`, `TryRecvError` and `RecvTimeoutError`.
macro_rules! blocking_recvs {
    (rx: $rx:ident, closed: $closed:expr; $($method:ident),* $(,)?) => {
        /// `try_recv`: a message if one is there.
        pub fn try_recv(&self) -> Result<T, TryRecvError> {
            self.$rx().try_recv().map(|m| self.inst.received(m))
        }

        $(blocking_recvs!(@ $method, $rx, $closed);)*
    };
    (@ recv, $rx:ident, $closed:expr) => {
        /// `recv`: waits for a message (the wait is charged to the function).
        pub fn recv(&self) -> Result<T, RecvError> {
            let rx = self.$rx();
            self.inst.recv_with(rx.try_recv(), || rx.recv(), $closed)
        }
    };
    (@ recv_timeout, $rx:ident, $closed:expr) => {
        blocking_recvs!(@ timed recv_timeout(timeout: std::time::Duration), $rx,
            "`recv_timeout`: as `recv`, for `timeout` at most.");
    };
    (@ recv_deadline, $rx:ident, $closed:expr) => {
        blocking_recvs!(@ timed recv_deadline(deadline: std::time::Instant), $rx,
            "`recv_deadline`: as `recv`, until `deadline`.");
    };
    (@ timed $method:ident($limit:ident: $t:ty), $rx:ident, $doc:literal) => {
        #[doc = $doc]
        pub fn $method(&self, $limit: $t) -> Result<T, RecvTimeoutError> {
            let rx = self.$rx();
            self.inst.recv_with(
                rx.try_recv(),
                || rx.$method($limit),
                RecvTimeoutError::Disconnected,
            )
        }
    };
}
