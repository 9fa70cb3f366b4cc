//! The rust-analyzer behind the server: found on `PATH`, started on the mirror workspace, and spoken
//! to over its standard input and output from two threads, so that the server's loop only ever
//! sends to a channel and receives from one.

use std::fs::File;
use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Instant;

use anyhow::Context;
use crossbeam_channel::{Receiver, Sender, unbounded};
use lsp_server::Message;

use crate::cargo_command::forget_the_program_cargo_ran;

/// The environment variable that names a rust-analyzer to use instead of searching `PATH`.
pub const ANALYZER_VARIABLE: &str = "LITBOOK_RUST_ANALYZER";

/// The environment variable that names a file to append every message between the server and
/// rust-analyzer to, one a line with the seconds since rust-analyzer started and its direction: what
/// to read beside rust-analyzer's own log (`RA_LOG`, on the server's standard error) when a check or
/// an answer goes astray.
pub const TRACE_VARIABLE: &str = "LITBOOK_LSP_TRACE";

/// How to get one, for the message that says it is missing.
pub const INSTALL_HINT: &str = "install one (`rustup component add rust-analyzer`, or on Debian `apt-get install rust-web-analyzer rust-web-src`) and put it on PATH, or name it in LITBOOK_RUST_ANALYZER";

/// The environment variable through which rust-analyzer is told where the standard library's source
/// is, when the toolchain's sysroot does not hold it.
const SOURCE_VARIABLE: &str = "RUST_SRC_PATH";

/// Where systems keep the standard library's source outside any toolchain: Debian's `rust-src` and
/// `rust-web-src` packages put it here.
const SYSTEM_STD_SOURCE: &str = "/usr/lib/rustlib/src/rust/library";

/// A running rust-analyzer.
pub struct Analyzer {
    child: Child,
    /// The directory it works in, the mirror's, where the `cargo` runs it starts work too.
    dir: PathBuf,
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
        // A process group of its own, which the processes it starts are in unless they start a
        // session of their own: all are ended with it (see `Drop`).
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
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
        let trace = Trace::from_environment(child.id());
        let traced = trace.clone();
        thread::spawn(move || {
            for message in to_analyzer {
                traced.record("->", &message);
                if message.write(&mut stdin).is_err() || stdin.flush().is_err() {
                    break;
                }
            }
        });
        thread::spawn(move || {
            let mut stdout = BufReader::new(stdout);
            while let Ok(Some(message)) = Message::read(&mut stdout) {
                trace.record("<-", &message);
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
            dir: dir.to_path_buf(),
            sender,
            receiver,
        })
    }

    pub fn send(&self, message: Message) {
        // A rust-analyzer that has gone away is noticed when its receiver disconnects.
        let _ = self.sender.send(message);
    }
}

/// rust-analyzer is ended with what it started, whether it is stopped here or stopped by itself (a
/// crash, or a `kill` from outside): the processes of its group, and the `cargo` runs it left in
/// the mirror. It starts each `cargo check` in a session of its own, which a rust-analyzer that
/// ends normally ends too, but one killed outright leaves running, holding the lock on the target
/// directory that the next rust-analyzer's first `cargo` then waits for, and checking code that is
/// no longer the editor's.
impl Drop for Analyzer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        #[cfg(unix)]
        kill_group(self.child.id());
        let _ = self.child.wait();
        #[cfg(target_os = "linux")]
        for group in cargo_groups_in(&self.dir) {
            kill_group(group);
        }
    }
}

/// Kills every process of the process group `group`, unless it is the server's own.
#[cfg(unix)]
fn kill_group(group: u32) {
    #[cfg(target_os = "linux")]
    if own_process_group() == Some(group) {
        return;
    }
    let _ = Command::new("kill")
        .args(["-s", "KILL", "--", &format!("-{group}")])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

/// The process groups of the `cargo` processes whose working directory is `dir`, as Linux's
/// `/proc` tells them.
#[cfg(target_os = "linux")]
fn cargo_groups_in(dir: &Path) -> std::collections::BTreeSet<u32> {
    let Ok(dir) = dir.canonicalize() else {
        return Default::default();
    };
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Default::default();
    };
    entries
        .flatten()
        .filter(|entry| std::fs::read_link(entry.path().join("cwd")).is_ok_and(|cwd| cwd == dir))
        .filter_map(|entry| {
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            let (name, group) = name_and_group(&stat)?;
            (name == "cargo").then_some(group)
        })
        .collect()
}

/// The server's own process group.
#[cfg(target_os = "linux")]
fn own_process_group() -> Option<u32> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    name_and_group(&stat).map(|(_, group)| group)
}

/// A process's name and process group, from its `/proc/PID/stat`: `PID (NAME) STATE PPID PGRP …`,
/// where the name may hold spaces and parentheses.
#[cfg(target_os = "linux")]
fn name_and_group(stat: &str) -> Option<(&str, u32)> {
    let (_, rest) = stat.split_once(" (")?;
    let (name, fields) = rest.rsplit_once(") ")?;
    let group = fields.split(' ').nth(2)?.parse().ok()?;
    Some((name, group))
}

/// Where the messages to and from one rust-analyzer are written, when `LITBOOK_LSP_TRACE` names a
/// file: each line the seconds since it started, `->` (to it) or `<-` (from it), its process id and
/// the message as JSON.
#[derive(Clone)]
struct Trace(Option<(Arc<Mutex<File>>, Instant, u32)>);

impl Trace {
    fn from_environment(pid: u32) -> Trace {
        let file = std::env::var_os(TRACE_VARIABLE).and_then(|path| {
            let opened = File::options().create(true).append(true).open(&path);
            opened
                .map_err(|e| eprintln!("litbook lsp: cannot trace into {path:?}: {e}"))
                .ok()
        });
        Trace(file.map(|file| (Arc::new(Mutex::new(file)), Instant::now(), pid)))
    }

    fn record(&self, direction: &str, message: &Message) {
        let Some((file, started, pid)) = &self.0 else {
            return;
        };
        let json = serde_json::to_string(message).unwrap_or_default();
        let line = format!(
            "{:.3} {direction} {pid} {json}\n",
            started.elapsed().as_secs_f64()
        );
        let mut file = file.lock().unwrap_or_else(|e| e.into_inner());
        let _ = file.write_all(line.as_bytes());
    }
}

/// The rust-analyzer to start: the one `LITBOOK_RUST_ANALYZER` names, or else the first
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
    #[cfg(target_os = "linux")]
    fn a_process_s_name_and_group_are_read_from_its_stat() {
        let stat = "4242 (cargo (x) y) S 1 4240 4240 0 -1 4194560";
        assert_eq!(name_and_group(stat), Some(("cargo (x) y", 4240)));
        assert_eq!(name_and_group("4242 cargo S 1"), None);
    }

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
