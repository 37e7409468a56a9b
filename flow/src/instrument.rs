//! What `channel!` expands to: the [`IntoInstrumented`] constructor pairs, and the shape
//! of a new instance (backend, kind, capacity, where its depth comes from) with the
//! checks of a declared `capacity = N`.

use crate::depth::Depth;
use crate::registry::FlowSite;

/// Which backend and kind of channel an instance is, and how it knows its depth.
pub(crate) struct Shape {
    pub(crate) backend: &'static str,
    pub(crate) kind: &'static str,
    /// The capacity the report shows; `None` for unbounded.
    pub(crate) capacity: Option<usize>,
    pub(crate) depth: Depth,
    /// Whether depth samples may exceed `capacity` (futures-channel: one more per sender).
    pub(crate) unclamped: bool,
}

impl Shape {
    /// `bounded` (or `rendezvous` for 0) with `capacity`, or `unbounded` for `None`.
    #[inline]
    pub(crate) fn sized(backend: &'static str, capacity: Option<usize>, depth: Depth) -> Shape {
        Shape {
            backend,
            kind: match capacity {
                Some(0) => "rendezvous",
                Some(_) => "bounded",
                None => "unbounded",
            },
            capacity,
            depth,
            unclamped: false,
        }
    }

    /// A channel of `capacity` (`None`: unbounded) whose depth comes from `depth`, after
    /// checking the declared capacity against `capacity`: `Depth::Len` for the backends
    /// that report their capacity and length (crossbeam, flume, async-channel),
    /// `Depth::Counters` for unbounded channels without `len()`.
    #[inline]
    pub(crate) fn checked(
        backend: &'static str,
        site: &FlowSite,
        capacity: Option<usize>,
        declared: Option<usize>,
        depth: Depth,
    ) -> Shape {
        check_capacity(site, capacity, declared);
        Shape::sized(backend, capacity, depth)
    }

    /// A oneshot channel: one message, its depth from the instance's counters, after
    /// checking the declared capacity against 1.
    #[inline]
    pub(crate) fn oneshot(
        backend: &'static str,
        site: &FlowSite,
        declared: Option<usize>,
    ) -> Shape {
        Shape {
            kind: "oneshot",
            ..Shape::checked(backend, site, Some(1), declared, Depth::Counters)
        }
    }
}

/// Panics when `capacity = N` was given and the channel's real capacity differs: the
/// argument is checked, never used to change the channel.
pub(crate) fn check_capacity(site: &FlowSite, actual: Option<usize>, declared: Option<usize>) {
    let Some(d) = declared else {
        return;
    };
    if actual == Some(d) {
        return;
    }
    let real = match actual {
        Some(a) => format!("was created with capacity {a}"),
        None => "is unbounded".to_string(),
    };
    panic!(
        "hotpath::channel! at {}:{}: `capacity = {d}` is given but the channel {real}; \
         correct or remove the `capacity` argument (hotpath checks it and never changes the channel)",
        site.file(), site.line()
    );
}

/// The capacity of a channel whose backend cannot tell it (std's `sync_channel`, tokio's
/// broadcast, futures-channel's bounded `channel`): the constructor's argument when
/// `channel!` could read it (a declared `capacity = N` is checked against it), else the
/// declared one.
pub(crate) fn ctor_capacity(
    site: &FlowSite,
    ctor: Option<usize>,
    declared: Option<usize>,
) -> Option<usize> {
    if ctor.is_some() {
        check_capacity(site, ctor, declared);
    }
    ctor.or(declared)
}

/// A raw channel (its two endpoints, as the constructor returned them) that `channel!`
/// knows how to instrument.
#[diagnostic::on_unimplemented(
    message = "`hotpath::channel!` does not know how to instrument `{Self}`",
    label = "not a channel constructor hotpath supports",
    note = "write the constructor call inside the macro: std `channel()`/`sync_channel(n)`, crossbeam or flume or async-channel `bounded(n)`/`unbounded()`, tokio `mpsc::channel(n)`/`mpsc::unbounded_channel()`/`oneshot::channel()`/`broadcast::channel(n)`/`watch::channel(v)`, futures `mpsc::channel(n)`/`mpsc::unbounded()`/`oneshot::channel()`, with the backend's cargo feature of hotpath enabled"
)]
pub trait IntoInstrumented: Sized {
    /// The wrapped endpoints.
    type Wrapped;

    /// Wraps the endpoints as one instance of `site`. `ctor` is the capacity argument of
    /// the constructor call when `channel!` could read it, `declared` the `capacity = N`
    /// given to the macro (checked, panics on a mismatch).
    fn instrument(
        self,
        site: &'static FlowSite,
        ctor: Option<usize>,
        declared: Option<usize>,
    ) -> Self::Wrapped;
}

/// What `channel!` expands to: the endpoints of the channel the constructor made,
/// wrapped.
#[inline]
pub fn channel<C: IntoInstrumented>(
    site: &'static FlowSite,
    c: C,
    ctor: Option<usize>,
    declared: Option<usize>,
) -> C::Wrapped {
    c.instrument(site, ctor, declared)
}

/// What `channel!` expands to with a label given at run time (`label = name`): the
/// endpoints wrapped as an instance of `site`'s entry for `label` (see
/// [`FlowSite::labelled`]).
#[inline]
pub fn channel_labelled<C: IntoInstrumented>(
    c: C,
    site: &'static FlowSite,
    label: &str,
    ctor: Option<usize>,
    declared: Option<usize>,
) -> C::Wrapped {
    c.instrument(site.labelled(label), ctor, declared)
}

#[cfg(test)]
mod tests {
    use super::*;

    static SITE: FlowSite = FlowSite::new("src/app.rs", 12, None, false);

    fn shape(s: Shape) -> (&'static str, &'static str, Option<usize>, Depth, bool) {
        (s.backend, s.kind, s.capacity, s.depth, s.unclamped)
    }

    #[test]
    fn a_capacity_names_the_kind() {
        let sized = |c| shape(Shape::sized("std", c, Depth::Counters)).1;
        assert_eq!(sized(Some(0)), "rendezvous");
        assert_eq!(sized(Some(1)), "bounded");
        assert_eq!(sized(Some(64)), "bounded");
        assert_eq!(sized(None), "unbounded");
    }

    #[test]
    fn each_constructor_gives_its_shape() {
        assert_eq!(
            shape(Shape::checked("flume", &SITE, Some(8), Some(8), Depth::Len)),
            ("flume", "bounded", Some(8), Depth::Len, false)
        );
        assert_eq!(
            shape(Shape::checked("tokio", &SITE, None, None, Depth::Counters)),
            ("tokio", "unbounded", None, Depth::Counters, false)
        );
        assert_eq!(
            shape(Shape::oneshot("futures", &SITE, Some(1))),
            ("futures", "oneshot", Some(1), Depth::Counters, false)
        );
    }

    #[test]
    fn a_declared_capacity_that_matches_or_none_passes() {
        check_capacity(&SITE, Some(4), Some(4));
        check_capacity(&SITE, Some(4), None);
        check_capacity(&SITE, None, None);
    }

    #[test]
    #[should_panic(
        expected = "hotpath::channel! at src/app.rs:12: `capacity = 8` is given but the channel was created with capacity 4; correct or remove the `capacity` argument (hotpath checks it and never changes the channel)"
    )]
    fn a_declared_capacity_that_differs_panics() {
        check_capacity(&SITE, Some(4), Some(8));
    }

    #[test]
    #[should_panic(expected = "`capacity = 1` is given but the channel is unbounded;")]
    fn a_capacity_declared_for_an_unbounded_channel_panics() {
        Shape::checked("std", &SITE, None, Some(1), Depth::Counters);
    }

    #[test]
    fn the_constructor_s_argument_wins_and_the_declared_one_fills_in() {
        assert_eq!(ctor_capacity(&SITE, Some(16), Some(16)), Some(16));
        assert_eq!(ctor_capacity(&SITE, Some(16), None), Some(16));
        assert_eq!(ctor_capacity(&SITE, None, Some(32)), Some(32));
        assert_eq!(ctor_capacity(&SITE, None, None), None);
    }

    #[test]
    #[should_panic(
        expected = "`capacity = 2` is given but the channel was created with capacity 16"
    )]
    fn the_constructor_s_argument_is_checked_against_the_declared_one() {
        ctor_capacity(&SITE, Some(16), Some(2));
    }
}
