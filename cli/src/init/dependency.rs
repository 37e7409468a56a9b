//! Where the `hotpath` dependency comes from when a package has none: `--git`,
//! `--package-name` with `--crate-version`, `--path`, or the checkout this binary was
//! built from. Never a bare crates.io version: there the name `hotpath` is another
//! project's crate.

use std::path::{Component, Path, PathBuf};

use super::args::Args;
use super::error::InitError;
use super::manifest::{self, Dependency, Source};

/// The dependency to write when the package has none: `--git`, `--crate-version`,
/// `--path`, or the checkout this binary was built from.
pub fn resolve(args: &Args, package_dir: &Path) -> Result<Dependency, InitError> {
    if let Some(url) = &args.git {
        let reference = [
            ("branch", &args.branch),
            ("tag", &args.tag),
            ("rev", &args.rev),
        ]
        .into_iter()
        .find_map(|(k, v)| v.clone().map(|v| (k, v)));
        return Ok(Dependency {
            source: Source::Git {
                url: url.clone(),
                reference,
            },
            package: own_name(args.package_name.as_deref()),
        });
    }
    if let Some(v) = &args.crate_version {
        return Ok(Dependency {
            source: Source::Registry(v.clone()),
            package: own_name(args.package_name.as_deref()),
        });
    }
    let dir = match &args.path {
        Some(p) => p.clone(),
        None => built_from().ok_or(InitError::NoSource)?,
    };
    let found = checkout_package(&dir)?;
    if let Some(given) = &args.package_name {
        if *given != found {
            return Err(InitError::PackageNameMismatch {
                dir,
                found,
                given: given.clone(),
            });
        }
    }
    let abs = std::fs::canonicalize(&dir).unwrap_or(dir);
    let from = std::fs::canonicalize(package_dir).unwrap_or_else(|_| package_dir.to_path_buf());
    Ok(Dependency {
        source: Source::Path(relative(&from, &abs)),
        package: own_name(Some(&found)),
    })
}

fn own_name(name: Option<&str>) -> Option<String> {
    name.filter(|n| *n != "hotpath").map(str::to_string)
}

/// The checkout this binary was built from (`cli/..`), if it still holds the facade.
fn built_from() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()?
        .to_path_buf();
    checkout_package(&dir).ok().map(|_| dir)
}

/// The package name of the hotpath facade at `dir`, after checking it is one.
fn checkout_package(dir: &Path) -> Result<String, InitError> {
    let not = |reason: &str| InitError::NotACheckout {
        dir: dir.to_path_buf(),
        reason: reason.to_string(),
    };
    let text = std::fs::read_to_string(dir.join("Cargo.toml"))
        .map_err(|e| not(&format!("no readable Cargo.toml ({e})")))?;
    let doc = text
        .parse::<toml_edit::DocumentMut>()
        .map_err(|_| not("its Cargo.toml is not valid TOML"))?;
    let name = doc
        .get("package")
        .and_then(|p| p.get("name"))
        .and_then(|n| n.as_str())
        .ok_or_else(|| not("its Cargo.toml has no [package] name"))?;
    let features = doc.get("features").and_then(|f| f.as_table_like());
    for f in manifest::FEATURES {
        if !features.is_some_and(|t| t.contains_key(f)) {
            return Err(not(&format!("package `{name}` has no feature `{f}`")));
        }
    }
    Ok(name.to_string())
}

/// `to` relative to `from` (both absolute), with `/` separators; `to` itself when they
/// share no root.
fn relative(from: &Path, to: &Path) -> String {
    let a: Vec<Component> = from.components().collect();
    let b: Vec<Component> = to.components().collect();
    if a.first() != b.first() {
        return to.to_string_lossy().replace('\\', "/");
    }
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut parts: Vec<String> = vec!["..".to_string(); a.len() - common];
    parts.extend(
        b[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    if parts.is_empty() {
        ".".to_string()
    } else {
        parts.join("/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_climb_then_descend() {
        assert_eq!(relative(Path::new("/a/b/c"), Path::new("/a/x")), "../../x");
        assert_eq!(relative(Path::new("/a"), Path::new("/a/x/y")), "x/y");
        assert_eq!(relative(Path::new("/a"), Path::new("/a")), ".");
    }
}
