//! pprof's `profile.proto` (github.com/google/pprof, `proto/profile.proto`), written
//! with hand-declared prost messages (no protoc, no build script) and gzipped.
//!
//! Sample types: `calls` (count), `wall` (nanoseconds) and, when the report has CPU
//! time per path, `cpu` (nanoseconds); `wall` is the default. One sample per path of
//! the calling-context tree, its locations leaf first, its values the path's own
//! (self) values: pprof's `flat` is then each function's self value and `cum` its
//! inclusive one. One location and one function per frame name, with the source file
//! and line from the report's functions; no mapping (`mapping_id` 0: unknown).

use std::collections::HashMap;
use std::io::Write;

use hotpath_report::export::{self, ExportError, Weight};
use hotpath_report::Report;

/// `Profile`: the whole file.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Profile {
    /// What each sample value is.
    #[prost(message, repeated, tag = "1")]
    pub sample_type: Vec<ValueType>,
    /// The samples: one per path.
    #[prost(message, repeated, tag = "2")]
    pub sample: Vec<Sample>,
    /// Binaries (none here).
    #[prost(message, repeated, tag = "3")]
    pub mapping: Vec<Mapping>,
    /// Frames.
    #[prost(message, repeated, tag = "4")]
    pub location: Vec<Location>,
    /// Functions.
    #[prost(message, repeated, tag = "5")]
    pub function: Vec<Function>,
    /// Every string, referred to by index; the first is `""`.
    #[prost(string, repeated, tag = "6")]
    pub string_table: Vec<String>,
    /// When the profile was taken, ns since the epoch.
    #[prost(int64, tag = "9")]
    pub time_nanos: i64,
    /// How long the profile covers, ns.
    #[prost(int64, tag = "10")]
    pub duration_nanos: i64,
    /// The kind of events between samples (CPU time when there is CPU).
    #[prost(message, optional, tag = "11")]
    pub period_type: Option<ValueType>,
    /// Events between samples.
    #[prost(int64, tag = "12")]
    pub period: i64,
    /// Index in `string_table` of the sample type shown by default.
    #[prost(int64, tag = "14")]
    pub default_sample_type: i64,
}

/// `ValueType`: a type and a unit, as string-table indexes.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ValueType {
    /// E.g. `wall`.
    #[prost(int64, tag = "1")]
    pub r#type: i64,
    /// E.g. `nanoseconds`.
    #[prost(int64, tag = "2")]
    pub unit: i64,
}

/// `Sample`: a stack (leaf first) and its values.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Sample {
    /// Location ids, leaf first.
    #[prost(uint64, repeated, tag = "1")]
    pub location_id: Vec<u64>,
    /// One value per sample type.
    #[prost(int64, repeated, tag = "2")]
    pub value: Vec<i64>,
    /// Labels (none here).
    #[prost(message, repeated, tag = "3")]
    pub label: Vec<Label>,
}

/// `Label`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Label {
    /// Key, string-table index.
    #[prost(int64, tag = "1")]
    pub key: i64,
    /// String value, string-table index.
    #[prost(int64, tag = "2")]
    pub str: i64,
    /// Numeric value.
    #[prost(int64, tag = "3")]
    pub num: i64,
    /// Unit of `num`, string-table index.
    #[prost(int64, tag = "4")]
    pub num_unit: i64,
}

/// `Mapping`: a binary's address range (not written: the frames are source functions).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Mapping {
    /// Id.
    #[prost(uint64, tag = "1")]
    pub id: u64,
    /// Start address.
    #[prost(uint64, tag = "2")]
    pub memory_start: u64,
    /// End address.
    #[prost(uint64, tag = "3")]
    pub memory_limit: u64,
    /// Offset in the file.
    #[prost(uint64, tag = "4")]
    pub file_offset: u64,
    /// File name, string-table index.
    #[prost(int64, tag = "5")]
    pub filename: i64,
    /// Build id, string-table index.
    #[prost(int64, tag = "6")]
    pub build_id: i64,
    /// Symbolized functions.
    #[prost(bool, tag = "7")]
    pub has_functions: bool,
    /// Symbolized files.
    #[prost(bool, tag = "8")]
    pub has_filenames: bool,
    /// Symbolized lines.
    #[prost(bool, tag = "9")]
    pub has_line_numbers: bool,
    /// Symbolized inline frames.
    #[prost(bool, tag = "10")]
    pub has_inline_frames: bool,
}

/// `Location`: one frame.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Location {
    /// Id (from 1).
    #[prost(uint64, tag = "1")]
    pub id: u64,
    /// Its mapping; 0: unknown.
    #[prost(uint64, tag = "2")]
    pub mapping_id: u64,
    /// Instruction address (none).
    #[prost(uint64, tag = "3")]
    pub address: u64,
    /// The function (and line) at this frame.
    #[prost(message, repeated, tag = "4")]
    pub line: Vec<Line>,
    /// Folded frames.
    #[prost(bool, tag = "5")]
    pub is_folded: bool,
}

/// `Line`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Line {
    /// The function's id.
    #[prost(uint64, tag = "1")]
    pub function_id: u64,
    /// Source line.
    #[prost(int64, tag = "2")]
    pub line: i64,
}

/// `Function`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Function {
    /// Id (from 1).
    #[prost(uint64, tag = "1")]
    pub id: u64,
    /// Name, string-table index.
    #[prost(int64, tag = "2")]
    pub name: i64,
    /// Name as the system knows it, string-table index.
    #[prost(int64, tag = "3")]
    pub system_name: i64,
    /// Source file, string-table index.
    #[prost(int64, tag = "4")]
    pub filename: i64,
    /// First line.
    #[prost(int64, tag = "5")]
    pub start_line: i64,
}

/// Strings by index, `""` first.
struct Strings {
    table: Vec<String>,
    index: HashMap<String, i64>,
}

impl Strings {
    fn new() -> Strings {
        let mut s = Strings {
            table: Vec::new(),
            index: HashMap::new(),
        };
        s.get("");
        s
    }

    fn get(&mut self, s: &str) -> i64 {
        if let Some(i) = self.index.get(s) {
            return *i;
        }
        let i = self.table.len() as i64;
        self.table.push(s.to_string());
        self.index.insert(s.to_string(), i);
        i
    }
}

/// The profile of `r`'s tree; `weight` is the default sample type.
pub fn profile(r: &Report, weight: Weight) -> Result<Profile, ExportError> {
    let paths = export::paths(r, weight)?;
    let cpu = paths.iter().any(|p| p.self_cpu_ns.is_some());
    let mut s = Strings::new();
    let mut sample_type = vec![
        ValueType {
            r#type: s.get("calls"),
            unit: s.get("count"),
        },
        ValueType {
            r#type: s.get("wall"),
            unit: s.get("nanoseconds"),
        },
    ];
    if cpu {
        sample_type.push(ValueType {
            r#type: s.get("cpu"),
            unit: s.get("nanoseconds"),
        });
    }
    let default_sample_type = s.get(match weight {
        Weight::Wall => "wall",
        Weight::Cpu => "cpu",
        Weight::Calls => "calls",
    });
    // Source file and line of each display name (the first function of that name).
    let mut source: HashMap<&str, (&str, u32)> = HashMap::new();
    for f in &r.functions {
        source
            .entry(f.display_name())
            .or_insert((f.file.as_str(), f.line));
    }
    let mut ids: HashMap<&str, u64> = HashMap::new();
    let (mut function, mut location) = (Vec::new(), Vec::new());
    let mut sample = Vec::new();
    for p in paths {
        let mut location_id = Vec::with_capacity(p.path.len());
        for name in p.path.iter().rev() {
            let next = ids.len() as u64 + 1;
            let id = *ids.entry(name.as_str()).or_insert(next);
            if id == next {
                let (file, line) = source.get(name.as_str()).copied().unwrap_or(("", 0));
                let n = s.get(name);
                function.push(Function {
                    id,
                    name: n,
                    system_name: n,
                    filename: s.get(file),
                    start_line: line as i64,
                });
                location.push(Location {
                    id,
                    mapping_id: 0,
                    address: 0,
                    line: vec![Line {
                        function_id: id,
                        line: line as i64,
                    }],
                    is_folded: false,
                });
            }
            location_id.push(id);
        }
        let mut value = vec![p.calls as i64, p.self_ns as i64];
        if cpu {
            value.push(p.self_cpu_ns.unwrap_or(0) as i64);
        }
        sample.push(Sample {
            location_id,
            value,
            label: Vec::new(),
        });
    }
    let period_type = cpu.then(|| ValueType {
        r#type: s.get("cpu"),
        unit: s.get("nanoseconds"),
    });
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i64);
    Ok(Profile {
        sample_type,
        sample,
        mapping: Vec::new(),
        location,
        function,
        string_table: s.table,
        time_nanos: now - r.elapsed_ns as i64,
        duration_nanos: r.elapsed_ns as i64,
        period_type,
        period: 0,
        default_sample_type,
    })
}

/// The gzipped `profile.proto` of `r`'s tree.
pub fn encode(r: &Report, weight: Weight) -> Result<Vec<u8>, ExportError> {
    let bytes = prost::Message::encode_to_vec(&profile(r, weight)?);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&bytes).expect("gzip into memory");
    Ok(gz.finish().expect("gzip into memory"))
}
