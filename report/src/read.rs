//! Reading reports back from JSON (feature `read`): the CLI, tests and any tool reading
//! saved reports. A profiled program only writes them, so it does not compile this (nor
//! the model's `Deserialize` impls, about a third of this crate's code).

use super::{Fragment, ProfilerStatus, Report, Section, OLDEST_SCHEMA_VERSION, SCHEMA_VERSION};

/// Why a JSON report could not be read.
#[derive(Debug)]
pub enum ReadError {
    /// The text is not a JSON report.
    Json(serde_json::Error),
    /// Valid JSON without a `schema_version`: not something hotpath wrote.
    NotAReport,
    /// The report was written with another layout version.
    SchemaVersion {
        /// Version found in the file.
        found: u64,
    },
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Json(e) => write!(f, "not a hotpath JSON report: {e}"),
            ReadError::NotAReport => {
                write!(f, "not a hotpath JSON report: it has no schema_version")
            }
            ReadError::SchemaVersion { found } => write!(
                f,
                "report has schema_version {found}; this build reads versions \
                 {OLDEST_SCHEMA_VERSION} to {SCHEMA_VERSION} \
                 (re-create the report with a matching hotpath version)"
            ),
        }
    }
}

impl std::error::Error for ReadError {}

impl Report {
    /// Reads a JSON report of schema version [`OLDEST_SCHEMA_VERSION`] to
    /// [`SCHEMA_VERSION`], refusing others.
    pub fn from_json(text: &str) -> Result<Report, ReadError> {
        let mut r: Report = read_versioned(text)?;
        r.mark_sampled_lock_dists();
        Ok(r)
    }

    /// Before version 7 a [`LockMode`](crate::LockMode) did not say whether its
    /// distributions were taken over a sample: they were when fewer acquisitions were
    /// timed than made.
    fn mark_sampled_lock_dists(&mut self) {
        if self.schema_version >= 7 {
            return;
        }
        let mutexes = self.mutexes.iter_mut().flatten().map(|e| &mut e.lock);
        let rw_locks = self.rw_locks.iter_mut().flatten().flat_map(|e| {
            [&mut e.read, &mut e.write]
                .into_iter()
                .chain(e.upgradable.as_mut())
        });
        for m in mutexes.chain(rw_locks) {
            m.sampled = m.timed < m.acquisitions;
        }
    }
}

impl Fragment {
    /// Reads a route's answer, refusing other schema versions.
    pub fn from_json(text: &str) -> Result<Fragment, ReadError> {
        #[derive(serde::Deserialize)]
        struct Header {
            schema_version: u32,
            section: Section,
            caller: String,
            elapsed_ns: u64,
            percentiles: Vec<f64>,
            notes: Vec<String>,
        }
        let v: serde_json::Value = read_versioned(text)?;
        let serde_json::Value::Object(mut all) = v else {
            return Err(ReadError::NotAReport);
        };
        let h: Header = serde_json::from_value(serde_json::Value::Object(all.clone()))
            .map_err(ReadError::Json)?;
        for key in [
            "schema_version",
            "section",
            "caller",
            "elapsed_ns",
            "percentiles",
            "notes",
        ] {
            all.remove(key);
        }
        let keys: Vec<String> = all.keys().cloned().collect();
        // A report with the header and nothing else, and the section's keys over it.
        let empty = Report {
            schema_version: h.schema_version,
            caller: h.caller.clone(),
            elapsed_ns: h.elapsed_ns,
            sections: vec![h.section],
            percentiles: h.percentiles.clone(),
            notes: h.notes.clone(),
            ..Report::default()
        };
        let Ok(serde_json::Value::Object(mut report)) = serde_json::to_value(&empty) else {
            unreachable!("a report serializes to a JSON object")
        };
        report.extend(all);
        let mut part: Report =
            serde_json::from_value(serde_json::Value::Object(report)).map_err(ReadError::Json)?;
        part.mark_sampled_lock_dists();
        Ok(Fragment {
            schema_version: h.schema_version,
            section: h.section,
            caller: h.caller,
            elapsed_ns: h.elapsed_ns,
            percentiles: h.percentiles,
            notes: h.notes,
            part,
            keys,
        })
    }
}

impl ProfilerStatus {
    /// Reads `/profiler_status`, refusing other schema versions.
    pub fn from_json(text: &str) -> Result<ProfilerStatus, ReadError> {
        read_versioned(text)
    }
}

/// Parses JSON with a `schema_version` key, refusing versions other than
/// [`OLDEST_SCHEMA_VERSION`]`..=`[`SCHEMA_VERSION`].
fn read_versioned<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, ReadError> {
    let v: serde_json::Value = serde_json::from_str(text).map_err(ReadError::Json)?;
    let Some(found) = v.get("schema_version").and_then(|v| v.as_u64()) else {
        return Err(ReadError::NotAReport);
    };
    if !(OLDEST_SCHEMA_VERSION as u64..=SCHEMA_VERSION as u64).contains(&found) {
        return Err(ReadError::SchemaVersion { found });
    }
    serde_json::from_value(v).map_err(ReadError::Json)
}

#[cfg(test)]
mod tests {
    use crate::model::{LockMode, MutexEntry, Report, RwLockEntry};

    /// A report of schema `version` with a mutex and an rw_lock's read mode timed `timed`
    /// times of 10 acquisitions, written without `sampled` (as versions before 7 were).
    fn written_without_sampled(version: u32, timed: u64) -> String {
        let mode = LockMode {
            acquisitions: 10,
            timed,
            ..LockMode::default()
        };
        let r = Report {
            schema_version: version,
            mutexes: Some(vec![MutexEntry {
                name: "m".into(),
                label: None,
                file: "f.rs".into(),
                line: 1,
                backend: "std".into(),
                type_name: "std::sync::Mutex<u8>".into(),
                instances: 1,
                lock: mode.clone(),
            }]),
            rw_locks: Some(vec![RwLockEntry {
                name: "rw".into(),
                label: None,
                file: "f.rs".into(),
                line: 2,
                backend: "std".into(),
                type_name: "std::sync::RwLock<u8>".into(),
                instances: 1,
                read: mode,
                write: LockMode::default(),
                upgradable: None,
            }]),
            ..Report::default()
        };
        let json = r.to_json();
        assert_eq!(json.matches(",\"sampled\":false").count(), 3);
        json.replace(",\"sampled\":false", "")
    }

    #[test]
    fn an_older_report_is_sampled_where_fewer_acquisitions_were_timed_than_made() {
        let r = Report::from_json(&written_without_sampled(6, 4)).unwrap();
        let m = &r.mutexes.as_ref().unwrap()[0].lock;
        let rw = &r.rw_locks.as_ref().unwrap()[0];
        assert!(m.sampled && rw.read.sampled);
        // The write mode made no acquisition: nothing to sample.
        assert!(!rw.write.sampled);
        let r = Report::from_json(&written_without_sampled(6, 10)).unwrap();
        assert!(!r.mutexes.as_ref().unwrap()[0].lock.sampled);
    }

    #[test]
    fn a_version_7_report_says_it_itself() {
        // Absent in a version-7 report means not sampled: the writer always says it.
        let r = Report::from_json(&written_without_sampled(7, 4)).unwrap();
        assert!(!r.mutexes.as_ref().unwrap()[0].lock.sampled);
    }
}
