//! `hotpath export`: a report's calling-context tree (section `stacks`, from
//! `HOTPATH_STACKS=1`) in other tools' formats.
//!
//! * `folded`: folded stacks, one line per path, for inferno, `flamegraph.pl`,
//!   speedscope (the facade's `hotpath_report::export::folded`);
//! * `svg`: a flame graph, drawn by inferno from the folded stacks;
//! * `pprof`: pprof's `profile.proto`, gzipped, for `go tool pprof` ([`pprof`]);
//! * `chrome`: the tree as a flame chart in the Trace Event Format, for Perfetto.
//!
//! Each weighs a path by its own wall time (default), CPU time or calls.

pub mod pprof;

use hotpath_report::export::{self, ExportError, Weight};
use hotpath_report::Report;

/// An output format of `hotpath export`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Folded stacks (text).
    Folded,
    /// A flame-graph SVG.
    Svg,
    /// pprof `profile.proto`, gzipped.
    Pprof,
    /// A Chrome trace of the tree (flame chart).
    Chrome,
}

/// The export of `r` in `format`, weighed by `weight` (the flame chart is always wall
/// time).
pub fn export(r: &Report, format: Format, weight: Weight) -> Result<Vec<u8>, ExportError> {
    Ok(match format {
        Format::Folded => export::folded(r, weight)?.into_bytes(),
        Format::Svg => svg(r, weight)?,
        Format::Pprof => pprof::encode(r, weight)?,
        Format::Chrome => export::chrome_tree(r)?.into_bytes(),
    })
}

/// A flame graph of the folded stacks. Frame widths are the paths' inclusive values;
/// hovering a frame shows its value and share.
pub fn svg(r: &Report, weight: Weight) -> Result<Vec<u8>, ExportError> {
    let folded = export::folded(r, weight)?;
    let mut opt = inferno::flamegraph::Options::default();
    opt.title = match weight {
        Weight::Wall => format!("{}: wall time per path", r.caller),
        Weight::Cpu => format!("{}: CPU time per path", r.caller),
        Weight::Calls => format!("{}: calls per path", r.caller),
    };
    opt.count_name = match weight {
        Weight::Wall | Weight::Cpu => "ns".into(),
        Weight::Calls => "calls".into(),
    };
    opt.subtitle =
        Some("hotpath: measured functions; a frame's width is its inclusive value".into());
    let mut out = Vec::new();
    if folded.is_empty() {
        // inferno refuses an empty profile; an empty tree is still a valid answer.
        return Ok(br#"<svg xmlns="http://www.w3.org/2000/svg" width="600" height="40"><text x="10" y="25">no measured call on any path</text></svg>"#.to_vec());
    }
    inferno::flamegraph::from_lines(&mut opt, folded.lines(), &mut out)
        .map_err(|e| ExportError::Render(e.to_string()))?;
    Ok(out)
}
