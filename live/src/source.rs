//! What the servers answer from: the running session, as a [`Source`], and why a
//! section cannot be served by it.

use hotpath_report::{ProfilerStatus, Report, Section};

/// What the server answers from: the running session.
pub trait Source: Send + Sync + 'static {
    /// The whole report so far.
    fn report(&self) -> Report;
    /// `/profiler_status`.
    fn status(&self) -> ProfilerStatus;
    /// The sections the session collects (`HOTPATH_REPORT` may have turned some off).
    fn sections(&self) -> Vec<Section>;
    /// Most functions, I/O entries and threads in `/metrics`.
    fn metrics_limit(&self) -> usize;
    /// Whether this build of the program can collect `section` at all (its Cargo
    /// features, its system).
    fn compiled(&self, section: Section) -> bool;
}

/// Why `section` cannot be served by this session, and the Cargo features of which any
/// one would add it (empty when none would); `None` when it can.
pub(crate) fn unavailable(
    source: &dyn Source,
    section: Section,
) -> Option<(String, &'static [&'static str])> {
    if !source.compiled(section) {
        return Some(match section.features_text() {
            Some(f) => (
                format!("section {section} needs the feature {f}"),
                section.features(),
            ),
            None => (
                format!(
                    "section {section} needs {}",
                    section.target_os().unwrap_or("another system")
                ),
                &[],
            ),
        });
    }
    if !source.sections().contains(&section) {
        let how = match section {
            Section::Stacks => "run the program with HOTPATH_STACKS=1",
            _ => "HOTPATH_REPORT",
        };
        return Some((format!("section {section} is turned off ({how})"), &[]));
    }
    None
}
