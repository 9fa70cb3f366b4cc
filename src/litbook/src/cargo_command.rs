//! Cargo started from a program that cargo itself runs (`cargo run -p litbook -- test`, a test that
//! builds a copy of a crate) inherits the variables cargo sets for that program: the program's own
//! package (`CARGO_PKG_NAME`, `CARGO_MANIFEST_DIR`, …) and build output (`OUT_DIR`). A build script
//! that watches one of them (`ring`'s watches `CARGO_PKG_NAME` and `OUT_DIR`, as every crate built
//! with `cc` does) then sees them changed since the build started from a shell, and cargo runs it
//! again and compiles its crate and everything above it again. So cargo is started without them.

use std::process::Command;

/// What cargo sets for a program or a build script it runs, besides every `CARGO_PKG_…` variable.
/// (It also puts its build's library directories on `LD_LIBRARY_PATH` and the `[env]` of its
/// configuration into a program's environment; those are kept, since a cargo started in turn sets
/// them again just the same.)
const SET_FOR_A_PROGRAM: [&str; 7] = [
    "CARGO_MANIFEST_DIR",
    "CARGO_MANIFEST_PATH",
    "CARGO_CRATE_NAME",
    "CARGO_BIN_NAME",
    "CARGO_PRIMARY_PACKAGE",
    "CARGO_TARGET_TMPDIR",
    "OUT_DIR",
];

/// A command of `cargo` (the cargo that runs this program, if one does), without what cargo set
/// for this program.
pub fn cargo_command() -> Command {
    let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    forget_the_program_cargo_ran(&mut command);
    command
}

/// Takes out of `command`'s environment what cargo set for this program, if it runs this one: for
/// a command that runs cargo in turn (mdbook, with a preprocessor built by cargo).
pub fn forget_the_program_cargo_ran(command: &mut Command) {
    for (name, _) in std::env::vars_os() {
        let set_by_cargo = name.to_str().is_some_and(|name| {
            name.starts_with("CARGO_PKG_") || SET_FOR_A_PROGRAM.contains(&name)
        });
        if set_by_cargo {
            command.env_remove(name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// These tests are a program cargo runs, so they have the variables to forget.
    #[test]
    fn cargo_is_started_without_what_cargo_set_for_this_program() {
        assert!(std::env::var_os("CARGO_PKG_NAME").is_some());
        let command = cargo_command();
        let removed: Vec<String> = command
            .get_envs()
            .filter(|(_, value)| value.is_none())
            .map(|(name, _)| name.to_string_lossy().into_owned())
            .collect();
        for name in ["CARGO_PKG_NAME", "CARGO_PKG_VERSION", "CARGO_MANIFEST_DIR"] {
            assert!(
                removed.iter().any(|r| r == name),
                "{name} kept: {removed:?}"
            );
        }
        assert!(!removed.iter().any(|r| r == "PATH" || r == "CARGO_HOME"));
    }
}
