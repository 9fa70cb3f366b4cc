//! The rust-analyzer behind the server: found on `PATH`, started on the mirror workspace, and spoken
//! to over its standard input and output from two threads, so that the server's loop only ever
//! sends to a channel and receives from one.

use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread;

use anyhow::Context;
use crossbeam_channel::{Receiver, Sender, unbounded};
use lsp_server::Message;

use crate::cargo_command::forget_the_program_cargo_ran;

/// The environment variable that names a rust-analyzer to use instead of searching `PATH`.
pub const ANALYZER_VARIABLE: &str = "LITERATE_RUST_ANALYZER";

/// How to get one, for the message that says it is missing.
pub const INSTALL_HINT: &str = "install one (`rustup component add rust-analyzer`, or on Debian `apt-get install rust-web-analyzer rust-web-src`) and put it on PATH, or name it in LITERATE_RUST_ANALYZER";

/// The environment variable through which rust-analyzer is told where the standard library's source
/// is, when the toolchain's sysroot does not hold it.
const SOURCE_VARIABLE: &str = "RUST_SRC_PATH";

/// Where systems keep the standard library's source outside any toolchain: Debian's `rust-src` and
/// `rust-web-src` packages put it here.
const SYSTEM_STD_SOURCE: &str = "/usr/lib/rustlib/src/rust/library";

/// A running rust-analyzer.
pub struct Analyzer {
    child: Child,
    sender: Sender<Message>,
    pub receiver: Receiver<Message>,
}

impl Analyzer {
    /// Starts `program` with `target_dir` as Cargo's target directory, in `dir`.
    pub fn start(program: &Path, dir: &Path, target_dir: &Path) -> anyhow::Result<Analyzer> {
        let mut command = Command::new(program);
        forget_the_program_cargo_ran(&mut command);
        if let Some(source) = std_source_to_name(dir) {
            command.env(SOURCE_VARIABLE, source);
        }
        let mut child = command
            .current_dir(dir)
            .env("CARGO_TARGET_DIR", target_dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .with_context(|| format!("cannot start {}", program.display()))?;
        let mut stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");
        let (sender, to_analyzer) = unbounded::<Message>();
        let (from_analyzer, receiver) = unbounded();
        thread::spawn(move || {
            for message in to_analyzer {
                if message.write(&mut stdin).is_err() || stdin.flush().is_err() {
                    break;
                }
            }
        });
        thread::spawn(move || {
            let mut stdout = BufReader::new(stdout);
            while let Ok(Some(message)) = Message::read(&mut stdout) {
                if from_analyzer.send(message).is_err() {
                    break;
                }
            }
        });
        thread::spawn(move || {
            let mut stderr = BufReader::new(stderr);
            let _ = std::io::copy(&mut stderr, &mut std::io::stderr());
        });
        Ok(Analyzer {
            child,
            sender,
            receiver,
        })
    }

    pub fn send(&self, message: Message) {
        // A rust-analyzer that has gone away is noticed when its receiver disconnects.
        let _ = self.sender.send(message);
    }
}

impl Drop for Analyzer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The rust-analyzer to start: the one `LITERATE_RUST_ANALYZER` names, or else the first
/// `rust-analyzer` on `PATH` that runs (rustup installs a `rust-analyzer` proxy that fails unless
/// the toolchain's component is installed; it is passed over). The error says what was tried.
pub fn find_rust_analyzer() -> Result<PathBuf, String> {
    if let Some(named) = std::env::var_os(ANALYZER_VARIABLE) {
        let program = PathBuf::from(&named);
        return runs(&program).map(|()| program).map_err(|why| {
            format!(
                "{ANALYZER_VARIABLE} names {}, which {why}; {INSTALL_HINT}",
                named.to_string_lossy()
            )
        });
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut tried = Vec::new();
    for dir in std::env::split_paths(&path) {
        let program = dir.join("rust-analyzer");
        if !program.is_file() {
            continue;
        }
        match runs(&program) {
            Ok(()) => return Ok(program),
            Err(why) => tried.push(format!("{} {why}", program.display())),
        }
    }
    let found = if tried.is_empty() {
        "no rust-analyzer on PATH".to_string()
    } else {
        format!("no working rust-analyzer on PATH ({})", tried.join("; "))
    };
    Err(format!("{found}; {INSTALL_HINT}"))
}

/// The standard library's source to name to rust-analyzer, if it would not find it by itself: none
/// when `RUST_SRC_PATH` is set already; else as [`std_source_beside`] chooses, for the sysroot of
/// the toolchain that builds the crate in `dir`. Without it, rust-analyzer knows nothing of std's
/// items: no hover on `Vec::push`, no completion of iterator methods, no types through their
/// chains. (The system's source may be of another Rust release than the toolchain, as Debian's 1.96
/// beside rustup's 1.95: std's items change little between releases, and far better that than none.)
fn std_source_to_name(dir: &Path) -> Option<PathBuf> {
    if std::env::var_os(SOURCE_VARIABLE).is_some() {
        return None;
    }
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let sysroot = Command::new(rustc)
        .args(["--print", "sysroot"])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()
        .filter(|output| output.status.success())
        .map(|output| PathBuf::from(String::from_utf8_lossy(&output.stdout).trim()));
    std_source_beside(sysroot.as_deref(), Path::new(SYSTEM_STD_SOURCE))
}

/// `system`, the system's copy of std's source, if there is one and the toolchain whose `sysroot`
/// is given (if `rustc` told it) has no source of its own (rustup's `rust-src` component).
fn std_source_beside(sysroot: Option<&Path>, system: &Path) -> Option<PathBuf> {
    let own = sysroot.is_some_and(|root| root.join("lib/rustlib/src/rust/library").is_dir());
    (!own && system.is_dir()).then(|| system.to_path_buf())
}

/// Whether `rust-analyzer --version` succeeds; if not, why not, in a few words.
fn runs(program: &Path) -> Result<(), String> {
    let output = Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot be run: {e}"))?;
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let first = stderr.lines().next().unwrap_or("").trim();
    Err(format!("fails: {first}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_system_s_std_source_is_named_only_where_the_toolchain_has_none() {
        let toolchain = tempfile::tempdir().unwrap();
        let system = tempfile::tempdir().unwrap();
        let (root, library) = (toolchain.path(), system.path());
        assert_eq!(
            std_source_beside(Some(root), library),
            Some(library.to_path_buf())
        );
        assert_eq!(
            std_source_beside(None, library),
            Some(library.to_path_buf())
        );
        assert_eq!(std_source_beside(Some(root), &root.join("none")), None);
        std::fs::create_dir_all(root.join("lib/rustlib/src/rust/library")).unwrap();
        assert_eq!(std_source_beside(Some(root), library), None);
    }
}
