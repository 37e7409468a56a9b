//! Which package `hotpath init` sets up, from `cargo metadata --no-deps`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use super::error::InitError;

/// The package to set up and the workspace around it.
#[derive(Debug)]
pub struct Target {
    /// The workspace root directory (the package's own directory outside a workspace).
    pub workspace_root: PathBuf,
    /// The package's name.
    pub name: String,
    /// The package's Cargo.toml.
    pub manifest_path: PathBuf,
    /// Its binary targets: name and source file of `main`.
    pub bins: Vec<(String, PathBuf)>,
    /// The workspace has more than one member (commands then need `-p NAME`).
    pub in_workspace: bool,
}

impl Target {
    /// The package's directory.
    pub fn dir(&self) -> &Path {
        self.manifest_path.parent().unwrap_or(Path::new("."))
    }

    /// The workspace root's Cargo.toml.
    pub fn root_manifest(&self) -> PathBuf {
        self.workspace_root.join("Cargo.toml")
    }
}

/// The cargo to run: `$CARGO` (set when run by cargo), else `cargo` on the PATH.
pub fn cargo() -> OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

/// Runs `cargo metadata --no-deps` and picks the package: `package` if given, else the
/// one whose manifest `manifest_path` is, else the only member, else the member whose
/// directory holds `cwd`.
pub fn locate(
    manifest_path: Option<&Path>,
    package: Option<&str>,
    cwd: &Path,
) -> Result<Target, InitError> {
    let cargo = cargo();
    let mut cmd = Command::new(&cargo);
    cmd.args(["metadata", "--no-deps", "--format-version", "1"])
        .current_dir(cwd);
    if let Some(m) = manifest_path {
        cmd.arg("--manifest-path").arg(m);
    }
    let out = cmd.output().map_err(|error| InitError::CargoNotRun {
        cargo: cargo.to_string_lossy().into_owned(),
        error,
    })?;
    if !out.status.success() {
        return Err(InitError::Metadata {
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        });
    }
    let meta: Value = serde_json::from_slice(&out.stdout).map_err(|e| InitError::Metadata {
        stderr: format!("unreadable output: {e}"),
    })?;
    let manifest = manifest_path.map(|m| canonical(&cwd.join(m)));
    select(&meta, package, manifest.as_deref(), cwd)
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

fn select(
    meta: &Value,
    package: Option<&str>,
    manifest: Option<&Path>,
    cwd: &Path,
) -> Result<Target, InitError> {
    let bad = |what: &str| InitError::Metadata {
        stderr: format!("unexpected output: no {what}"),
    };
    let root = PathBuf::from(
        meta["workspace_root"]
            .as_str()
            .ok_or_else(|| bad("workspace_root"))?,
    );
    let members: Vec<&str> = meta["workspace_members"]
        .as_array()
        .ok_or_else(|| bad("workspace_members"))?
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let packages: Vec<&Value> = meta["packages"]
        .as_array()
        .ok_or_else(|| bad("packages"))?
        .iter()
        .filter(|p| p["id"].as_str().is_some_and(|id| members.contains(&id)))
        .collect();
    let name = |p: &Value| p["name"].as_str().unwrap_or("").to_string();
    let mut names: Vec<String> = packages.iter().map(|p| name(p)).collect();
    names.sort();
    let dir_of = |p: &Value| {
        PathBuf::from(p["manifest_path"].as_str().unwrap_or(""))
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default()
    };
    let by_manifest = manifest.and_then(|m| {
        packages
            .iter()
            .find(|p| canonical(Path::new(p["manifest_path"].as_str().unwrap_or(""))) == m)
    });
    let chosen = match (package, by_manifest) {
        (Some(n), _) => packages
            .iter()
            .find(|p| p["name"].as_str() == Some(n))
            .ok_or_else(|| InitError::NoSuchPackage {
                name: n.to_string(),
                members: names.clone(),
            })?,
        (None, Some(p)) => p,
        (None, None) if packages.len() == 1 => &packages[0],
        (None, None) => {
            // The member whose directory is the deepest one holding the current directory.
            let cwd = canonical(cwd);
            packages
                .iter()
                .filter(|p| cwd.starts_with(canonical(&dir_of(p))))
                .max_by_key(|p| dir_of(p).components().count())
                .ok_or_else(|| InitError::ChoosePackage {
                    root: root.clone(),
                    members: names.clone(),
                })?
        }
    };
    let mut bins = Vec::new();
    for t in chosen["targets"].as_array().into_iter().flatten() {
        let kinds: Vec<&str> = t["kind"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        if kinds.contains(&"bin") {
            bins.push((
                t["name"].as_str().unwrap_or("").to_string(),
                PathBuf::from(t["src_path"].as_str().unwrap_or("")),
            ));
        }
    }
    bins.sort();
    Ok(Target {
        workspace_root: root,
        name: name(chosen),
        manifest_path: PathBuf::from(chosen["manifest_path"].as_str().unwrap_or("")),
        bins,
        in_workspace: packages.len() > 1,
    })
}
