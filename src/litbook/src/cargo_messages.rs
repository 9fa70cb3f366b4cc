//! cargo's messages (`--message-format=json`) and the rustc diagnostics inside them, as types that
//! hold what the tools read of them: a build script's output directory (where the line maps are), a
//! compiled program's path, and each diagnostic with its spans and children. The rest of what cargo
//! says is skipped as it is read.

use std::path::PathBuf;

use serde::Deserialize;

/// One message of cargo's, by its `reason`.
#[derive(Debug, Deserialize)]
#[serde(tag = "reason", rename_all = "kebab-case")]
pub enum CargoMessage {
    /// A build script ran: the tangled files and their maps are in its `out_dir`; its package's
    /// `package_id` names the package's directory (`path+file:///DIR#0.1.0`) when it is local.
    BuildScriptExecuted {
        out_dir: PathBuf,
        #[serde(default)]
        package_id: String,
    },
    /// A target was compiled; a program, test or benchmark has its `executable`.
    CompilerArtifact {
        target: ArtifactTarget,
        executable: Option<PathBuf>,
    },
    /// rustc said something about the code.
    CompilerMessage { message: RustcDiagnostic },
    /// Any other message (`build-finished`, or one a later cargo adds).
    #[serde(other)]
    Other,
}

/// The directory of a local package from its cargo package id: `path+file:///DIR#0.1.0`, or the
/// older form `NAME 0.1.0 (path+file:///DIR)`, the directory written as a URL's path
/// (`my%20book` for `my book`); `None` for a package from a registry or git.
pub fn package_dir(package_id: &str) -> Option<PathBuf> {
    let (_, rest) = package_id.split_once("path+file://")?;
    let end = rest.find(['#', ')']).unwrap_or(rest.len());
    let path = percent_encoding::percent_decode_str(&rest[..end])
        .decode_utf8()
        .ok()?;
    Some(PathBuf::from(path.as_ref()))
}

impl CargoMessage {
    /// The message a line of cargo's output holds, or `None` for a line that is not one (a
    /// program's own output, which `cargo run` and `cargo test` interleave with cargo's).
    pub fn parse(line: &str) -> Option<CargoMessage> {
        serde_json::from_str(line).ok()
    }
}

/// The target of a compiled artifact.
#[derive(Debug, Deserialize)]
pub struct ArtifactTarget {
    pub name: String,
}

/// A rustc diagnostic: its message and level, the code it has (`E0308`), its spans, its children
/// (notes and help, with spans of their own or none) and rustc's own rendering of it. A field that
/// a rustc of another release leaves out is empty, not a reason to drop the diagnostic.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct RustcDiagnostic {
    pub message: String,
    pub code: Option<DiagnosticCode>,
    pub level: DiagnosticLevel,
    pub spans: Vec<DiagnosticSpan>,
    pub children: Vec<RustcDiagnostic>,
    pub rendered: Option<String>,
}

/// A diagnostic's code.
#[derive(Debug, Deserialize)]
pub struct DiagnosticCode {
    pub code: String,
}

/// How grave a diagnostic is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DiagnosticLevel {
    Error,
    Warning,
    Note,
    Help,
    FailureNote,
    /// `error: internal compiler error`, or a level a later rustc adds.
    #[default]
    #[serde(other)]
    Other,
}

/// A stretch of a file that a diagnostic points at: 1-based lines and columns (in characters), the
/// last column just past the stretch.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct DiagnosticSpan {
    pub file_name: String,
    pub line_start: usize,
    pub line_end: usize,
    pub column_start: usize,
    pub column_end: usize,
    pub is_primary: bool,
    pub label: Option<String>,
    pub suggested_replacement: Option<String>,
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    #[test]
    fn a_local_package_s_directory_is_read_from_its_id_in_either_form() {
        let dir = |id| package_dir(id).map(|path| path.display().to_string());
        let new = "path+file:///work/my%20book#stack@0.1.0";
        assert_eq!(dir(new).as_deref(), Some("/work/my book"));
        let old = "stack 0.1.0 (path+file:///work/stack)";
        assert_eq!(dir(old).as_deref(), Some("/work/stack"));
        assert_eq!(
            dir("registry+https://github.com/rust-lang/crates.io-index#rand@0.10.0"),
            None
        );
    }

    #[test]
    fn cargo_s_messages_are_read_by_their_reason() {
        let executed = r#"{"reason":"build-script-executed","package_id":"x","linked_libs":[],"out_dir":"/t/out"}"#;
        assert!(matches!(
            CargoMessage::parse(executed),
            Some(CargoMessage::BuildScriptExecuted { out_dir, .. }) if out_dir == Path::new("/t/out")
        ));
        let artifact = r#"{"reason":"compiler-artifact","target":{"name":"game","kind":["bin"]},"executable":"/t/game","fresh":true}"#;
        let Some(CargoMessage::CompilerArtifact { target, executable }) =
            CargoMessage::parse(artifact)
        else {
            panic!("an artifact");
        };
        assert_eq!(
            (target.name.as_str(), executable),
            ("game", Some("/t/game".into()))
        );
        let finished = r#"{"reason":"build-finished","success":true}"#;
        assert!(matches!(
            CargoMessage::parse(finished),
            Some(CargoMessage::Other)
        ));
        assert!(CargoMessage::parse("running 3 tests").is_none());
    }

    #[test]
    fn a_diagnostic_keeps_its_spans_children_and_level() {
        let line = r#"{"reason":"compiler-message","message":{"message":"mismatched types","code":{"code":"E0308","explanation":"…"},"level":"error","spans":[{"file_name":"/o/world.rs","byte_start":1,"byte_end":2,"line_start":3,"line_end":3,"column_start":5,"column_end":9,"is_primary":true,"text":[],"label":"expected `u8`","suggested_replacement":null,"suggestion_applicability":null,"expansion":null}],"children":[{"message":"for more","code":null,"level":"note","spans":[],"children":[],"rendered":null}],"rendered":"error[E0308]: mismatched types\n"}}"#;
        let Some(CargoMessage::CompilerMessage { message }) = CargoMessage::parse(line) else {
            panic!("a compiler message");
        };
        assert_eq!(message.level, DiagnosticLevel::Error);
        assert_eq!(message.code.unwrap().code, "E0308");
        let span = &message.spans[0];
        assert_eq!(
            (span.line_start, span.column_start, span.column_end),
            (3, 5, 9)
        );
        assert_eq!(span.label.as_deref(), Some("expected `u8`"));
        assert_eq!(message.children[0].level, DiagnosticLevel::Note);
        let ice = r#"{"message":"x","code":null,"level":"error: internal compiler error","spans":[],"children":[],"rendered":null}"#;
        let ice: RustcDiagnostic = serde_json::from_str(ice).unwrap();
        assert_eq!(ice.level, DiagnosticLevel::Other);
        let sparse: RustcDiagnostic = serde_json::from_str(r#"{"message":"m"}"#).unwrap();
        assert_eq!((sparse.message.as_str(), sparse.spans.len()), ("m", 0));
    }
}
