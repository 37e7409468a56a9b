//! `hotpath --help` and every subcommand's help end with examples of that command, and
//! `hotpath completions SHELL` prints a script that knows the subcommands and options.

use std::process::Command;

fn hotpath(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_hotpath"))
        .args(args)
        .output()
        .expect("run hotpath");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// The lines after `Examples:` up to the first blank line.
fn examples(help: &str) -> Vec<&str> {
    let (_, after) = help
        .split_once("\nExamples:\n")
        .expect("an Examples section");
    after.lines().take_while(|l| !l.is_empty()).collect()
}

#[test]
fn every_help_has_examples_of_its_own_command() {
    let top = hotpath(&["--help"]);
    for sub in ["init", "console", "report", "diff", "export", "completions"] {
        assert!(
            examples(&top)
                .iter()
                .any(|l| l.starts_with(&format!("  hotpath {sub} "))),
            "--help has no example of {sub}:\n{top}"
        );
        for flag in ["-h", "--help"] {
            let help = hotpath(&[sub, flag]);
            let ex = examples(&help);
            assert!(
                ex.iter()
                    .any(|l| l.starts_with(&format!("  hotpath {sub} "))),
                "`{sub} {flag}` has no example of itself:\n{help}"
            );
        }
    }
}

#[test]
fn completions_know_subcommands_and_options() {
    let bash = hotpath(&["completions", "bash"]);
    assert!(bash.contains("_hotpath() {"), "{bash}");
    assert!(
        bash.contains(
            "opts=\"-h -V --help --version init console report diff export completions help\""
        ),
        "{bash}"
    );
    assert!(bash.contains("hotpath__subcmd__init)"), "{bash}");
    assert!(bash.contains("--measure-all"), "{bash}");

    let zsh = hotpath(&["completions", "zsh"]);
    assert!(zsh.starts_with("#compdef hotpath\n"), "{zsh}");
    assert!(
        zsh.contains("'(--check)--dry-run[Print the changes as a unified diff and write nothing]'"),
        "{zsh}"
    );

    let fish = hotpath(&["completions", "fish"]);
    assert!(
        fish.contains("complete -c hotpath -n \"__fish_hotpath_needs_command\" -f -a \"init\""),
        "{fish}"
    );
    assert!(
        fish.contains("-l agent -d 'Also write the instructions this coding agent reads. Repeatable' -r -f -a \"claude\\t'"),
        "{fish}"
    );
}
