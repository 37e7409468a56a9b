//! Spacing shared by the table and the inspect pane, so that their columns line up alike.

/// Spaces between table columns.
pub(crate) const GAP: u16 = 2;
