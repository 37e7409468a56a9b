//! The checks of `tests/fixtures/tests/tail_temps.rs` on the same program built as edition
//! 2024, and the functions that compile only in 2024.
#![cfg(feature = "hotpath")]

const BIN: &str = env!("CARGO_BIN_EXE_tail_temps_2024");
const CRATE: &str = "tail_temps_2024";

#[path = "../../fixtures/tests/tail_temps/cases.rs"]
mod cases;

mod locals_in_tail {
    use hotpath::report::{Function, Report};

    fn row<'a>(r: &'a Report, name: &str) -> &'a Function {
        let path = format!("locals_in_tail::{name}");
        r.functions
            .iter()
            .find(|f| f.name == path)
            .unwrap_or_else(|| panic!("no {path} in {:?}", r.functions))
    }

    #[test]
    fn last_expressions_borrowing_locals_compile_and_are_counted() {
        let r = super::cases::run(env!("CARGO_BIN_EXE_locals_in_tail"));
        for name in ["ref_of_a_local", "guard_of_a_local", "async_ref_of_a_local"] {
            assert_eq!(row(&r, name).calls, 2, "{name}");
        }
        assert_eq!(row(&r, "main").calls, 1);
    }

    #[cfg(feature = "hotpath-alloc")]
    #[test]
    fn their_guards_and_locals_are_freed_inside_the_call() {
        use super::cases::six;
        let r = super::cases::run(env!("CARGO_BIN_EXE_locals_in_tail"));
        assert_eq!(six(row(&r, "ref_of_a_local")), (2, 2000, 2, 2000, 2000, 0));
        assert_eq!(
            six(row(&r, "guard_of_a_local")),
            (2, 1000, 2, 1000, 1000, 0)
        );
        assert_eq!(
            six(row(&r, "async_ref_of_a_local")),
            (2, 2000, 2, 2000, 2000, 0)
        );
    }
}
