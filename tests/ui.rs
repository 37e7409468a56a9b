//! Compile tests of the attribute macros. The same cases and the same `.stderr` files
//! must hold with and without the `hotpath` feature (trybuild builds the cases with the
//! features of this test crate):
//!
//! ```text
//! cargo test --test ui
//! cargo test --test ui --features hotpath
//! ```
//!
//! `tests/ui/ok` holds programs that must compile and run (each asserts its results),
//! `tests/ui/ok-without-alloc` those that must unless `hotpath-alloc` is on;
//! `tests/ui/err` holds misuses, each with the one diagnostic it must produce.
//! Regenerate the `.stderr` files with `TRYBUILD=overwrite cargo test --test ui`, then
//! check them unchanged with `--features hotpath`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/ok/*.rs");
    // `#[main]` on an associated function: with `hotpath-alloc` it installs the global
    // allocator, a `static`, which an `impl` or trait cannot hold.
    if !cfg!(feature = "hotpath-alloc") {
        t.pass("tests/ui/ok-without-alloc/*.rs");
    }
    t.compile_fail("tests/ui/err/*.rs");
}
