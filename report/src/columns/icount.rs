//! Columns of the `icount` table.

use super::common::{functions_by, Cell, Column, Columns};
use crate::model::{Function, FunctionIcount, Report};

/// A function with its instruction counts: a row of the `icount` table.
pub type IcountRow<'a> = (&'a Function, &'a FunctionIcount);

/// `icount`: instructions per function under callgrind. Rows: functions with an
/// `icount` object.
pub fn icount(_: &Report) -> Columns<'_, IcountRow<'_>> {
    vec![
        Column::left("Function", |(f, _): &IcountRow<'_>| {
            Cell::text(f.display_name().to_string(), f.display_name())
        }),
        Column::right("Calls", |(_, c): &IcountRow<'_>| Cell::count(c.calls)),
        Column::right("Instructions", |(_, c): &IcountRow<'_>| {
            Cell::count(c.inclusive)
        }),
        Column::right("Self instr", |(_, c): &IcountRow<'_>| Cell::count(c.self_)),
        Column::right("Instr/call", |(_, c): &IcountRow<'_>| {
            Cell::count(c.inclusive / c.calls.max(1))
        }),
    ]
}

/// The rows of the `icount` table, by inclusive instructions.
pub fn icount_rows(r: &Report) -> Vec<IcountRow<'_>> {
    functions_by(r, |f| f.icount.as_ref(), |(_, c)| (c.inclusive, c.self_))
}
