//! `--agent`: the instructions a coding agent reads, written where that agent looks for
//! them. The text is compiled into this binary; nothing is downloaded and no agent is
//! started.

use std::path::{Path, PathBuf};

use super::error::InitError;
use super::write::Change;

/// The skill file: YAML front matter (`name`, `description`) and the instructions.
pub const SKILL: &str = include_str!("skill.md");

/// First line of the block `hotpath init` manages in `AGENTS.md`.
pub const BEGIN: &str = "<!-- hotpath:begin -->";
/// Last line of that block.
pub const END: &str = "<!-- hotpath:end -->";

/// A coding agent whose instructions file `hotpath init --agent` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, clap::ValueEnum)]
pub enum Agent {
    /// Claude Code: the skill `.claude/skills/hotpath/SKILL.md`.
    Claude,
    /// Codex: a block between `<!-- hotpath:begin -->` and `<!-- hotpath:end -->` in
    /// `AGENTS.md`, replaced in place on a later run.
    Codex,
    /// OpenCode: the skill `.opencode/skills/hotpath/SKILL.md`.
    Opencode,
}

impl Agent {
    /// The file it reads, relative to the project root.
    pub fn file(self) -> &'static str {
        match self {
            Agent::Claude => ".claude/skills/hotpath/SKILL.md",
            Agent::Codex => "AGENTS.md",
            Agent::Opencode => ".opencode/skills/hotpath/SKILL.md",
        }
    }

    /// The command that starts it on the project at `root`, and how it finds the
    /// instructions.
    pub fn how_to_start(self, root: &Path) -> (String, &'static str) {
        let cd = format!("cd {} && ", root.display());
        match self {
            Agent::Claude => (
                format!("{cd}claude"),
                "Claude Code: the skill `hotpath`, loaded for profiling tasks or with /hotpath",
            ),
            Agent::Codex => (
                format!("{cd}codex"),
                "Codex: reads the hotpath block of AGENTS.md at start",
            ),
            Agent::Opencode => (
                format!("{cd}opencode"),
                "OpenCode: the skill `hotpath`, offered to the agent for profiling tasks",
            ),
        }
    }

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::Opencode => "opencode",
        }
    }

    /// The change that puts the instructions in place under `root`.
    pub fn change(self, root: &Path) -> Result<Change, InitError> {
        let path = root.join(self.file());
        let old = read_if_exists(&path)?;
        let new = match self {
            Agent::Claude | Agent::Opencode => SKILL.to_string(),
            Agent::Codex => agents_md(&path, old.as_deref())?,
        };
        Ok(Change { path, old, new })
    }
}

fn read_if_exists(path: &Path) -> Result<Option<String>, InitError> {
    match std::fs::read_to_string(path) {
        Ok(s) => Ok(Some(s)),
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            Ok(None)
        }
        Err(error) => Err(InitError::Read {
            path: path.to_path_buf(),
            error,
        }),
    }
}

/// The instructions without the skill's front matter.
pub fn body() -> &'static str {
    SKILL
        .strip_prefix("---\n")
        .and_then(|rest| rest.split_once("\n---\n"))
        .map_or(SKILL, |(_, body)| body.trim_start_matches('\n'))
}

/// `AGENTS.md` with the managed block: replaced between its markers when present, else
/// appended after a blank line (or the whole file when there is none).
fn agents_md(path: &Path, old: Option<&str>) -> Result<String, InitError> {
    let block = format!("{BEGIN}\n{}{END}\n", body());
    let Some(old) = old else {
        return Ok(block);
    };
    if let Some(start) = old.find(BEGIN) {
        let after = start + BEGIN.len();
        let Some(end) = old[after..].find(END).map(|i| after + i + END.len()) else {
            return Err(InitError::UnclosedBlock {
                path: PathBuf::from(path),
            });
        };
        let end = if old[end..].starts_with("\r\n") {
            end + 2
        } else if old[end..].starts_with('\n') {
            end + 1
        } else {
            end
        };
        return Ok(format!("{}{block}{}", &old[..start], &old[end..]));
    }
    let sep = if old.is_empty() || old.ends_with("\n\n") {
        ""
    } else if old.ends_with('\n') {
        "\n"
    } else {
        "\n\n"
    };
    Ok(format!("{old}{sep}{block}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skill_front_matter_names_the_skill_after_its_directory() {
        assert!(
            SKILL.starts_with("---\nname: hotpath\ndescription: "),
            "{SKILL}"
        );
        let front = SKILL.split("\n---\n").next().expect("front matter");
        let description = front
            .lines()
            .find_map(|l| l.strip_prefix("description: "))
            .expect("description");
        assert!((1..=1024).contains(&description.len()));
        assert!(body().starts_with("# "), "{}", &body()[..40]);
    }

    #[test]
    fn agents_md_block_is_appended_once_and_replaced_in_place() {
        let p = Path::new("AGENTS.md");
        let first = agents_md(p, Some("# Project\n\nRun make.\n")).expect("append");
        assert_eq!(
            first,
            format!("# Project\n\nRun make.\n\n{BEGIN}\n{}{END}\n", body())
        );
        assert_eq!(agents_md(p, Some(&first)).expect("again"), first);
        let stale = format!("top\n{BEGIN}\nold text\n{END}\nbottom\n");
        assert_eq!(
            agents_md(p, Some(&stale)).expect("replace"),
            format!("top\n{BEGIN}\n{}{END}\nbottom\n", body())
        );
        assert!(matches!(
            agents_md(p, Some(&format!("{BEGIN}\nno end\n"))),
            Err(InitError::UnclosedBlock { .. })
        ));
    }
}
