//! `litbook test`, `run`, `bench` and `build`: the cargo command of the same name and arguments,
//! with every place in a tangled file that its output names put back in the book. Compile errors
//! and warnings are rendered at their Markdown places (as `litbook check` renders them); in
//! everything else cargo and the programs it runs print (panics, failed assertions, backtrace
//! frames), a tangled file's `PATH:LINE[:COL]` becomes the chapter's place, and the tangled place
//! is kept in a note at the end of the line. Cargo's progress and colours are kept, and the exit
//! status is cargo's.

use std::io::{self, IsTerminal, Read, Write};
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;

use crate::cargo_check::{Mapper, cargo_refused_the_arguments, renderer_for};
use crate::cargo_command::cargo_command;
use crate::cargo_messages::CargoMessage;

/// Runs `cargo SUBCOMMAND ARGS` in the working directory, with places mapped; exits as cargo did.
pub fn run(subcommand: &str, args: &[String]) -> ExitCode {
    let colour = io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let test_colour = io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let mut command = cargo(subcommand, args, colour);
    let (_, rest) = split_at_program_args(args);
    if subcommand == "test" && test_colour && !rest.iter().any(|a| a.starts_with("--color")) {
        // The tests' harness colours its results only on a terminal, which it no longer writes to.
        command.args(if rest.is_empty() { &["--"][..] } else { &[] });
        command.args(["--color", "always"]);
    }
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) => {
            eprintln!("litbook {subcommand}: cannot run cargo: {e}");
            return ExitCode::from(2);
        }
    };
    let mapper = Arc::new(Mutex::new(Mapper::new(Path::new("."))));
    let stdout = child.stdout.take().expect("stdout is piped");
    let stderr = child.stderr.take().expect("stderr is piped");
    let errors = {
        let mapper = Arc::clone(&mapper);
        thread::spawn(move || copy_mapped(stderr, &mut io::stderr(), &mapper, None))
    };
    let renderer = renderer_for(&io::stderr());
    let messages = |line: &str, mapper: &mut Mapper| {
        let rendered = cargo_message(line, mapper, &renderer)?;
        if !rendered.is_empty() {
            eprintln!("{rendered}\n");
        }
        Some(String::new())
    };
    let began = AtomicBool::new(false);
    let messages = |line: &str, mapper: &mut Mapper| {
        let shown = messages(line, mapper)?;
        began.store(true, Ordering::Relaxed);
        Some(shown)
    };
    copy_mapped(stdout, &mut io::stdout(), &mapper, Some(&messages));
    let _ = errors.join();
    match child.wait() {
        Ok(status) => match status.code() {
            Some(0) => ExitCode::SUCCESS,
            Some(1) if !began.load(Ordering::Relaxed) => cargo_refused_the_arguments(subcommand),
            Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
            None => ExitCode::FAILURE,
        },
        Err(e) => {
            eprintln!("litbook {subcommand}: cargo did not end: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Runs `cargo SUBCOMMAND ARGS` in `dir` and returns whether it succeeded, and everything it
/// printed on either stream (compile errors rendered), with places mapped.
pub fn run_captured(subcommand: &str, args: &[String], dir: &Path) -> io::Result<(bool, String)> {
    let mut child = cargo(subcommand, args, false).current_dir(dir).spawn()?;
    let mapper = Arc::new(Mutex::new(Mapper::new(dir)));
    let stdout = child.stdout.take().expect("stdout is piped");
    let stderr = child.stderr.take().expect("stderr is piped");
    let errors = {
        let mapper = Arc::clone(&mapper);
        thread::spawn(move || {
            let mut captured = Vec::new();
            copy_mapped(stderr, &mut captured, &mapper, None);
            captured
        })
    };
    let renderer = annotate_snippets::Renderer::plain();
    let messages = |line: &str, mapper: &mut Mapper| {
        let rendered = cargo_message(line, mapper, &renderer)?;
        Some(if rendered.is_empty() {
            rendered
        } else {
            format!("{rendered}\n")
        })
    };
    let mut out = Vec::new();
    copy_mapped(stdout, &mut out, &mapper, Some(&messages));
    out.extend(errors.join().unwrap_or_default());
    let success = child.wait()?.success();
    Ok((success, String::from_utf8_lossy(&out).into_owned()))
}

/// The cargo command, its output piped, with JSON messages (their diagnostics rendered with
/// colours when `colour`).
fn cargo(subcommand: &str, args: &[String], colour: bool) -> Command {
    let format = if colour {
        "--message-format=json-diagnostic-rendered-ansi"
    } else {
        "--message-format=json"
    };
    let (flags, rest) = split_at_program_args(args);
    let mut command = cargo_command();
    command
        .arg(subcommand)
        .arg(format)
        .args(flags)
        .args(rest)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if colour {
        command.env("CARGO_TERM_COLOR", "always");
    }
    command
}

/// Cargo's own arguments and, from `--` on, those for the program it runs (kept as they are).
fn split_at_program_args(args: &[String]) -> (&[String], &[String]) {
    let at = args.iter().position(|a| a == "--").unwrap_or(args.len());
    args.split_at(at)
}

/// What to do with a line of cargo's standard output that is one of its JSON messages: `None` when
/// it is not one (it is then a line the program printed), or the text to show for it (which is
/// empty for messages that show nothing).
type Messages<'a> = dyn Fn(&str, &mut Mapper) -> Option<String> + 'a;

/// A line of cargo's JSON, `None` if the line is not one: a build script's output directory is
/// noted (its line maps are what places are mapped through), and a compiler diagnostic is
/// rendered at its Markdown places (other messages show nothing: an empty text).
fn cargo_message(
    line: &str,
    mapper: &mut Mapper,
    renderer: &annotate_snippets::Renderer,
) -> Option<String> {
    match CargoMessage::parse(line)? {
        CargoMessage::BuildScriptExecuted {
            out_dir,
            package_id,
        } => mapper.add_out_dir(out_dir, &package_id),
        CargoMessage::CompilerMessage { message } => {
            return Some((mapper.render_once(&message, renderer)).unwrap_or_default());
        }
        _ => {}
    }
    Some(String::new())
}

/// Copies `from` to `to` a line at a time (a line ends at `\n` or at cargo's progress `\r`), with
/// tangled places mapped; lines that are cargo's JSON messages go to `messages`.
fn copy_mapped(
    mut from: impl Read,
    to: &mut dyn Write,
    mapper: &Mutex<Mapper>,
    messages: Option<&Messages>,
) {
    let mut pending: Vec<u8> = Vec::new();
    let mut buffer = [0_u8; 8192];
    loop {
        let read = match from.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(read) => read,
        };
        pending.extend_from_slice(&buffer[..read]);
        while let Some(end) = pending.iter().position(|&b| b == b'\n' || b == b'\r') {
            let line: Vec<u8> = pending.drain(..=end).collect();
            write_line(&line, to, mapper, messages);
        }
    }
    if !pending.is_empty() {
        write_line(&pending, to, mapper, messages);
    }
    let _ = to.flush();
}

fn write_line(
    line: &[u8],
    to: &mut dyn Write,
    mapper: &Mutex<Mapper>,
    messages: Option<&Messages>,
) {
    let mut mapper = mapper
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let text = String::from_utf8_lossy(line);
    let (body, ending) = text.split_at(text.trim_end_matches(['\n', '\r']).len());
    if let Some(shown) = messages.and_then(|messages| messages(body, &mut mapper)) {
        if !shown.is_empty() {
            let _ = to.write_all(shown.as_bytes());
        }
        return;
    }
    let mapped = mapper.map_places(body);
    let _ = to.write_all(mapped.as_bytes());
    let _ = to.write_all(ending.as_bytes());
    let _ = to.flush();
}
