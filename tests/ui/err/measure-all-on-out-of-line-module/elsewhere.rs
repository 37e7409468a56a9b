//! Body of the out-of-line module in `../measure-all-on-out-of-line-module.rs`; it exists
//! so that the case shows the attribute's own error rather than a missing file.
