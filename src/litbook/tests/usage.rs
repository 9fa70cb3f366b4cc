//! Bad usage of `litbook`, as a new user (or a misconfigured editor) makes it: an unknown command or
//! argument is answered by one line that names it and says where the usage is told, with exit status
//! 2, and nothing is written; a language server fed what it cannot read says so in one line.

use std::fs;
use std::process::Command;

/// Runs `litbook ARGS` in an empty directory; its exit status, standard output and standard error,
/// and what the directory holds afterwards.
fn literate_in_an_empty_directory(args: &[&str]) -> (Option<i32>, String, String, usize) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let output = Command::new(env!("CARGO_BIN_EXE_litbook"))
        .args(args)
        .current_dir(dir.path())
        .output()
        .expect("litbook runs");
    let left = fs::read_dir(dir.path())
        .expect("the directory is there")
        .count();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
        left,
    )
}

#[test]
fn each_bad_usage_is_one_line_that_names_it() {
    let cases: [(&[&str], &str); 8] = [
        (&[], "litbook: no command given"),
        (&["frobnicate"], "litbook: no command `frobnicate`"),
        (&["fmt", "--frob"], "litbook fmt: unknown argument `--frob`"),
        (
            &["fmt", "--check", "extra"],
            "litbook fmt: unexpected `extra`",
        ),
        (
            &["init", "--bogus"],
            "litbook init: unknown argument `--bogus`",
        ),
        (
            &["init", "--litbook"],
            "litbook init: --litbook needs the path",
        ),
        (
            &["init", "--litbook", "a", "b"],
            "litbook init: unexpected `b`",
        ),
        (
            &["lsp", "--tcp"],
            "litbook lsp: `--tcp`: lsp speaks on standard input and output",
        ),
    ];
    for (args, said) in cases {
        let (code, stdout, stderr, left) = literate_in_an_empty_directory(args);
        assert_eq!(code, Some(2), "litbook {args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "litbook {args:?}: {stderr}");
        assert!(stderr.starts_with(said), "litbook {args:?}: {stderr}");
        assert!(stderr.contains("`litbook --help`"), "{stderr}");
        assert!(stdout.is_empty(), "litbook {args:?}: {stdout}");
        assert_eq!(left, 0, "litbook {args:?} wrote nothing");
    }
}

#[test]
fn help_is_the_usage_on_standard_output() {
    let (code, stdout, stderr, _) = literate_in_an_empty_directory(&["--help"]);
    assert_eq!(code, Some(0));
    assert!(stdout.starts_with("usage: litbook check"), "{stdout}");
    assert!(stderr.is_empty(), "{stderr}");
}

#[test]
fn help_asked_of_any_command_is_the_usage_even_outside_a_book() {
    let commands = [
        "check", "test", "run", "bench", "build", "fmt", "lsp", "init", "mdbook",
    ];
    for command in commands {
        for help in ["--help", "-h"] {
            let (code, stdout, stderr, left) = literate_in_an_empty_directory(&[command, help]);
            assert_eq!(code, Some(0), "{command} {help}: {stderr}");
            assert!(stdout.starts_with("usage: litbook check"), "{stdout}");
            assert!(stderr.is_empty(), "{command} {help}: {stderr}");
            assert_eq!(left, 0, "{command} {help} wrote nothing");
        }
    }
    let (_, stdout, _, _) = literate_in_an_empty_directory(&["test", "--help"]);
    assert!(stdout.contains("`cargo test --help` tells cargo's own arguments"));
    let (code, _, stderr, _) = literate_in_an_empty_directory(&["test", "--", "--help"]);
    assert_eq!(code, Some(1), "after --, --help is the program's: {stderr}");
    assert!(
        stderr.starts_with("litbook test: no book at or above"),
        "{stderr}"
    );
}

#[test]
fn every_command_outside_a_book_says_so_in_one_line() {
    for command in ["check", "test", "run", "bench", "build", "fmt"] {
        let (code, stdout, stderr, left) = literate_in_an_empty_directory(&[command]);
        assert_eq!(code, Some(1), "{command}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{command}: {stderr}");
        let said = format!("litbook {command}: no book at or above");
        assert!(stderr.starts_with(&said), "{stderr}");
        assert!(stderr.contains("`litbook init` starts one"), "{stderr}");
        assert!(stdout.is_empty(), "{command}: {stdout}");
        assert_eq!(left, 0, "{command}");
    }
}

#[test]
fn the_version_is_one_line_on_standard_output() {
    let (code, stdout, stderr, _) = literate_in_an_empty_directory(&["--version"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(stdout, format!("litbook {}\n", env!("CARGO_PKG_VERSION")));
}

/// Runs `litbook lsp ARGS` in an empty directory with `input` as all the editor ever sends; its
/// exit status and standard error.
fn language_server_given(args: &[&str], input: &[u8]) -> (Option<i32>, String) {
    let (code, _, stderr) = language_server_in(None, args, input);
    (code, stderr)
}

/// [`language_server_given`] in `dir` (a new empty directory if `None`): the exit status, standard
/// output and standard error.
fn language_server_in(
    dir: Option<&std::path::Path>,
    args: &[&str],
    input: &[u8],
) -> (Option<i32>, String, String) {
    let empty = tempfile::tempdir().expect("a temporary directory");
    let (server, stdin) = language_server_fed(dir.unwrap_or(empty.path()), args, input);
    drop(stdin);
    ended(server)
}

/// Starts `litbook lsp ARGS` in `dir` and writes `input` to it; the server, and its standard input,
/// still open.
fn language_server_fed(
    dir: &std::path::Path,
    args: &[&str],
    input: &[u8],
) -> (std::process::Child, std::process::ChildStdin) {
    use std::io::Write;
    use std::process::Stdio;
    let mut server = Command::new(env!("CARGO_BIN_EXE_litbook"))
        .arg("lsp")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("litbook lsp starts");
    let mut stdin = server.stdin.take().expect("stdin is piped");
    stdin.write_all(input).expect("the server reads");
    (server, stdin)
}

/// What a server whose input is closed printed once it ended: its exit status, standard output and
/// standard error.
fn ended(server: std::process::Child) -> (Option<i32>, String, String) {
    let output = server.wait_with_output().expect("the server ends");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// `message` framed as the protocol frames every message.
fn framed(message: &str) -> String {
    format!("Content-Length: {}\r\n\r\n{message}", message.len())
}

/// The editor's `initialize`, framed, for a server started in `dir`.
fn initialize_in(dir: &std::path::Path) -> String {
    let uri = format!("file://{}", dir.display());
    framed(&format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"capabilities":{{}},"rootUri":"{uri}"}}}}"#
    ))
}

/// What an editor sends a server started in `dir`, outside any book: `initialize`, then, as some
/// editors do, `initialized` as if the server had started (a well-formed message, not one the server
/// cannot parse).
fn initialize_outside_a_book(dir: &std::path::Path) -> String {
    initialize_in(dir) + &framed(r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#)
}

/// The one answer the server wrote, unframed; `None` unless it wrote a whole one.
fn the_answer(stdout: &str) -> Option<serde_json::Value> {
    let (_, body) = stdout.split_once("\r\n\r\n")?;
    serde_json::from_str(body).ok()
}

#[test]
fn the_language_server_outside_a_book_answers_initialize_with_the_reason() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let input = initialize_outside_a_book(dir.path());
    let (code, stdout, stderr) = language_server_in(Some(dir.path()), &[], input.as_bytes());
    assert_eq!(code, Some(1), "{stderr}");
    let answer = the_answer(&stdout).expect("one answer, framed, in JSON");
    assert_eq!(answer["id"], 1);
    assert_eq!(answer["error"]["code"], -32803, "RequestFailed: {answer}");
    assert_eq!(answer["error"]["data"]["retry"], false);
    let message = answer["error"]["message"].as_str().unwrap();
    let reason = format!("no book at or above {}", dir.path().display());
    assert!(
        message.starts_with(&format!("litbook lsp: {reason}:")),
        "{message}"
    );
    assert!(message.ends_with("`litbook init` starts one"), "{message}");
    assert_eq!(
        stderr,
        format!(
            "litbook lsp: stopped: {}\n",
            &message["litbook lsp: ".len()..]
        )
    );
}

/// The refusal is written by the connection's writer thread; a server that ended as soon as it had
/// handed the refusal over lost it once in thirty to sixty runs, so two hundred runs (under a
/// second) all but surely catch a server that does not wait for its writer.
#[test]
fn the_refusal_to_initialize_is_never_lost_as_the_server_ends() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let input = initialize_outside_a_book(dir.path());
    for run in 1..=200 {
        let (_, stdout, stderr) = language_server_in(Some(dir.path()), &[], input.as_bytes());
        let answer = the_answer(&stdout).unwrap_or_else(|| {
            panic!("run {run} wrote no whole answer: {stdout:?} (stderr: {stderr})")
        });
        assert_eq!(answer["error"]["code"], -32803, "run {run}");
    }
}

/// An editor that sends nothing after `initialize` and keeps its side of the connection open (it
/// waits for the answer, then for the server to end) still sees the server end by itself, with the
/// refusal written and the reason on stderr.
#[test]
fn the_language_server_refusing_to_initialize_ends_without_waiting_for_the_editor() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (mut server, stdin) =
        language_server_fed(dir.path(), &[], initialize_in(dir.path()).as_bytes());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while server
        .try_wait()
        .expect("the server can be waited for")
        .is_none()
    {
        if std::time::Instant::now() > deadline {
            let _ = server.kill();
            panic!("the server still ran 20 s after refusing, its input open");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    drop(stdin);
    let (code, stdout, stderr) = ended(server);
    assert_eq!(code, Some(1), "{stderr}");
    let answer = the_answer(&stdout).expect("one answer, framed, in JSON");
    assert_eq!(answer["error"]["code"], -32803, "RequestFailed: {answer}");
    assert!(
        stderr.starts_with("litbook lsp: stopped: no book at or above"),
        "{stderr}"
    );
}

#[test]
fn the_language_server_says_why_it_stopped_when_the_editor_s_messages_cannot_be_read() {
    let (code, stderr) = language_server_given(&[], b"garbage\r\n\r\n");
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(
        stderr,
        "litbook lsp: stopped: cannot read the editor's messages: malformed header: \"garbage\"\n"
    );
    let (code, stdout, stderr) = language_server_in(None, &[], b"Content-Length: 5\r\n\r\n{bad}");
    assert_eq!(code, Some(1), "{stderr}");
    let (_, body) = stdout.split_once("\r\n\r\n").expect("one answer, framed");
    let answer: serde_json::Value = serde_json::from_str(body).expect("the answer is JSON");
    assert_eq!(answer["id"], serde_json::Value::Null);
    assert_eq!(answer["error"]["code"], -32700, "ParseError: {answer}");
    assert!(
        stderr.starts_with("litbook lsp: stopped: cannot read the editor's messages: malformed"),
        "{stderr}"
    );
    for args in [&[][..], &["--stdio"]] {
        let (code, stderr) = language_server_given(args, b"");
        assert_eq!(code, Some(1), "{stderr}");
        assert_eq!(
            stderr,
            "litbook lsp: stopped: the editor closed the connection before it initialized the \
             server\n",
            "litbook lsp {args:?}, as an editor may start it"
        );
    }
}
