//! Copies of a crate built by the tests, compiling only what the copy changes: their cargo runs keep
//! their intermediate files in the build directory of the workspace whose tests run them (Cargo's
//! `build-dir`), where every dependency is compiled already, and only their final files in a
//! directory of their own. So a copy of Chat Noir builds its window's program without compiling the
//! window's hundreds of crates again.
//!
//! Cargo names what it compiles for a package of a workspace by the package's name, version and
//! place in its workspace, so a copy's own packages would take the names of the originals' files
//! and write over them. [`tell_apart`] gives the copy's packages versions of their own first, but
//! for the tangler, which the copy shares with the original (a link to its sources), and whose
//! files it finds compiled.

use std::fs;
use std::path::Path;
use std::process::Command;

/// The build directory of the workspace these tests belong to: the target directory whose `tmp`
/// cargo gave them.
fn workspace_build_dir(tests_tmp: &Path) -> &Path {
    tests_tmp
        .parent()
        .expect("the tests' directory is inside the target directory")
}

/// Makes `command` (a cargo run, or a program that runs cargo) keep its intermediate files in the
/// workspace's build directory and its final files in `own`, under the tests' `tests_tmp`, and
/// start cargo as a shell does, without what cargo set for the test.
pub fn share_compiled_dependencies(command: &mut Command, tests_tmp: &Path, own: &str) {
    litbook::cargo_command::forget_the_program_cargo_ran(command);
    command
        .env("CARGO_BUILD_BUILD_DIR", workspace_build_dir(tests_tmp))
        .env("CARGO_TARGET_DIR", tests_tmp.join(own))
        .env_remove("CARGO_MAKEFLAGS");
}

/// Gives each package of the copied workspace in `dir` (its root package and its members, each
/// `version = "0.1.0"` in its manifest) the version `0.1.0-{copy}`, so that nothing compiled for
/// the copy is named like the original's; all but the tangler, which is the original's (see
/// [`share_the_tangler`]). `copy` is a word of letters, one for each copy that may be built at the
/// same time as another.
pub fn tell_apart(dir: &Path, copy: &str) {
    share_the_tangler(dir);
    let members = [
        "Cargo.toml",
        "src/weaver/Cargo.toml",
        "src/figures/Cargo.toml",
        "src/book-browser/Cargo.toml",
    ];
    for manifest in members.map(|m| dir.join(m)) {
        let text = fs::read_to_string(&manifest).expect("a member's manifest in the copy");
        let versioned = text.replacen(
            "\nversion = \"0.1.0\"\n",
            &format!("\nversion = \"0.1.0-{copy}\"\n"),
            1,
        );
        let said = format!("{} has no `version = \"0.1.0\"` line", manifest.display());
        assert_ne!(versioned, text, "{said}");
        fs::write(manifest, versioned).expect("write a manifest");
    }
}

/// Puts the original workspace's tangler (`src/litbook`, its package and its sources) in the copy
/// in `dir` in place of the copy's own, as a link with the same version: the copy's builds then find
/// it compiled, in each set of features they need, in the shared build directory, and never compile
/// or write it. Optimised, and in two sets of features (the build script's and the weaver's), it
/// is most of what a copy would compile. No copy changes the tangler.
fn share_the_tangler(dir: &Path) {
    // These tests are the tangler's own, or those of the workspace at whose root it is a member.
    let tests_of = Path::new(env!("CARGO_MANIFEST_DIR"));
    let original = match tests_of.join("src/litbook") {
        member if member.join("Cargo.toml").is_file() => member,
        _ => tests_of.to_path_buf(),
    };
    let original = original.canonicalize().expect("the original tangler");
    let copied = dir.join("src/litbook");
    fs::remove_dir_all(&copied).expect("remove the copy's tangler");
    std::os::unix::fs::symlink(&original, &copied).expect("link the original tangler");
}
