//! Maps `cargo check`'s diagnostics from tangled files back to the book.
//!
//! `cargo check --message-format=json` reports each diagnostic with spans in the files rustc read. A
//! span in a tangled file (one with a `.map` beside it in a build script's `OUT_DIR`) is mapped through
//! that line map to its Markdown place, and the whole diagnostic is rendered again, rustc-style, with
//! the Markdown's path, line, column and text.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::io::{self, BufRead, BufReader, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::{ExitCode, Stdio};

use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};

use crate::LineMap;
use crate::cargo_command::cargo_command;
use crate::cargo_messages::{
    CargoMessage, DiagnosticLevel, DiagnosticSpan, RustcDiagnostic, package_dir,
};

/// Runs `cargo check --message-format=json` with `cargo_args` in the current directory, prints every
/// diagnostic at its Markdown place, and exits as cargo did.
pub fn run(cargo_args: &[String]) -> ExitCode {
    let renderer = renderer_for(&io::stdout());
    let report = match cargo(
        "check",
        cargo_args,
        Path::new("."),
        &renderer,
        &mut io::stdout(),
    ) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("litbook check: cannot run cargo: {e}");
            return ExitCode::from(2);
        }
    };
    if !report.success && report.errors == 0 {
        return stopped_before_the_compiler(report.code);
    }
    println!(
        "litbook check: {} error(s), {} warning(s), shown at their places in the book",
        report.errors, report.warnings
    );
    if report.success {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// What `litbook SUBCOMMAND` says when cargo refused its arguments before it began (cargo's own
/// reason is above, with a usage line naming the `--message-format` litbook adds): status 2.
pub fn cargo_refused_the_arguments(subcommand: &str) -> ExitCode {
    eprintln!(
        "litbook {subcommand}: cargo refused the arguments (its reason is above; the \
         --message-format in its usage line is litbook's own); litbook {subcommand} takes \
         cargo {subcommand}'s arguments"
    );
    ExitCode::from(2)
}

/// What `litbook check` says when cargo failed with no diagnostic of the compiler to show: cargo
/// refused its arguments (cargo's status 1: bad usage, status 2 here), or it stopped before compiling
/// the book's code, as when a build script fails (the tangler's report of a problem in the book is
/// such a failure). Either way cargo's own words are above.
fn stopped_before_the_compiler(code: Option<i32>) -> ExitCode {
    if code == Some(1) {
        return cargo_refused_the_arguments("check");
    }
    eprintln!(
        "litbook check: cargo stopped before the compiler checked the book's code; the reason \
         is above (for a problem in the book, at its place in a chapter)"
    );
    ExitCode::FAILURE
}

/// Colours when `stream` is a terminal and `NO_COLOR` is not set.
pub fn renderer_for(stream: &impl IsTerminal) -> Renderer {
    if stream.is_terminal() && std::env::var_os("NO_COLOR").is_none() {
        Renderer::styled()
    } else {
        Renderer::plain()
    }
}

/// What a run of cargo gave.
#[derive(Debug, Default)]
pub struct Report {
    pub errors: usize,
    pub warnings: usize,
    /// The programs it built, by target name.
    pub executables: Vec<(String, PathBuf)>,
    pub success: bool,
    /// Cargo's exit status, if it exited rather than being stopped by a signal.
    pub code: Option<i32>,
}

/// Runs `cargo SUBCOMMAND --message-format=json ARGS` in `dir` and writes every diagnostic to `out`,
/// those in tangled files at their Markdown places (read relative to `dir`). Cargo's own progress
/// ("Compiling …") goes to standard error as usual.
pub fn cargo(
    subcommand: &str,
    args: &[String],
    dir: &Path,
    renderer: &Renderer,
    out: &mut dyn Write,
) -> io::Result<Report> {
    let mut child = cargo_command()
        .arg(subcommand)
        .arg("--message-format=json")
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .spawn()?;
    let stdout = child.stdout.take().expect("stdout is piped");
    let mut mapper = Mapper::new(dir);
    let mut report = Report::default();
    for line in BufReader::new(stdout).lines().map_while(Result::ok) {
        match CargoMessage::parse(&line) {
            Some(CargoMessage::BuildScriptExecuted {
                out_dir,
                package_id,
            }) => mapper.add_out_dir(out_dir, &package_id),
            Some(CargoMessage::CompilerArtifact {
                target,
                executable: Some(path),
            }) => report.executables.push((target.name, path)),
            Some(CargoMessage::CompilerMessage { message }) => {
                if let Some(text) = mapper.render_once(&message, renderer) {
                    match message.level {
                        DiagnosticLevel::Error => report.errors += 1,
                        DiagnosticLevel::Warning => report.warnings += 1,
                        _ => {}
                    }
                    writeln!(out, "{text}\n")?;
                }
            }
            _ => {}
        }
    }
    let status = child.wait()?;
    report.success = status.success();
    report.code = status.code();
    Ok(report)
}

/// Knows the build scripts' output directories and the line maps in them, and the directory the
/// Markdown places are relative to.
pub struct Mapper {
    root: PathBuf,
    out_dirs: Vec<PathBuf>,
    /// The directory of the package whose build script wrote each output directory, where known:
    /// a map's Markdown files are relative to it.
    packages: HashMap<PathBuf, PathBuf>,
    maps: HashMap<PathBuf, Option<LineMap>>,
    /// The diagnostics rendered so far: cargo reports a diagnostic once for each target that
    /// compiles the code (a library and its tests), and it is shown once.
    rendered: HashSet<String>,
}

/// A tangled place found in a line of output: its byte range, its Markdown place and itself, short.
struct FoundPlace {
    start: usize,
    end: usize,
    mapped: String,
    tangled: String,
}

/// A span's file and its 1-based first and last line and column (columns in characters, the last one
/// just past the span).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Span {
    file: String,
    start: (usize, usize),
    end: (usize, usize),
}

impl Mapper {
    /// A mapper for places relative to `root`, the directory cargo runs in.
    pub fn new(root: &Path) -> Mapper {
        Mapper {
            root: root.to_path_buf(),
            out_dirs: Vec::new(),
            packages: HashMap::new(),
            maps: HashMap::new(),
            rendered: HashSet::new(),
        }
    }

    /// `diagnostic` rendered at its Markdown places, or `None` when the same text was rendered
    /// before in this run of cargo.
    pub(crate) fn render_once(
        &mut self,
        diagnostic: &RustcDiagnostic,
        renderer: &Renderer,
    ) -> Option<String> {
        let text = self.render(diagnostic, renderer);
        self.rendered.insert(text.clone()).then_some(text)
    }

    /// Notes a build script's output directory, whose tangled files' places are to be mapped, and
    /// the package (by its cargo id) whose book they come from.
    pub(crate) fn add_out_dir(&mut self, dir: PathBuf, package_id: &str) {
        if let Some(package) = package_dir(package_id) {
            self.packages.insert(dir.clone(), package);
        }
        if !self.out_dirs.contains(&dir) {
            self.out_dirs.push(dir);
        }
    }

    /// A Markdown file of the book whose tangled file is `tangled`, as the map names it (relative to
    /// its crate), named from where the command runs: a workspace's member's chapter is
    /// `member/book/src/x.md` from the workspace's root. Outside the directory it runs in, the path
    /// is absolute; a package not known, as the map says.
    fn named_from_here(&self, tangled: &Path, file: String) -> String {
        let Some(package) = (self.out_dirs.iter())
            .find(|dir| tangled.starts_with(dir))
            .and_then(|dir| self.packages.get(dir))
        else {
            return file;
        };
        let real = |path: &Path| {
            fs::canonicalize(path)
                .or_else(|_| std::path::absolute(path))
                .unwrap_or_else(|_| path.to_path_buf())
        };
        let (here, path) = (real(&self.root), real(package).join(&file));
        match path.strip_prefix(&here) {
            Ok(relative) => relative.to_string_lossy().replace('\\', "/"),
            Err(_) => path.to_string_lossy().into_owned(),
        }
    }

    /// Renders one rustc diagnostic (the `message` of a `compiler-message`). One that touches no
    /// tangled file keeps rustc's own rendering.
    pub(crate) fn render(&mut self, diagnostic: &RustcDiagnostic, renderer: &Renderer) -> String {
        let rendered = diagnostic.rendered.as_deref().unwrap_or("").trim_end();
        let rendered = rendered.to_string();
        if !self.touches_tangled_file(diagnostic) {
            return rendered;
        }
        let mut groups = vec![self.group(diagnostic, true)];
        let mut notes = Vec::new();
        for child in &diagnostic.children {
            if !child.spans.is_empty() {
                groups.push(self.group(child, false));
            } else {
                notes.push(child);
            }
        }
        let mut first = groups.remove(0);
        for note in notes {
            first = first.element(level(note.level).message(note.message.clone()));
        }
        groups.insert(0, first);
        renderer.render(&groups).to_string()
    }

    /// A line of output with each `PATH:LINE[:COL]` of a tangled file in it put at its Markdown
    /// place, and the tangled places noted at the line's end (`[tangled: OUT_DIR/x.rs:12:5]`).
    pub fn map_places(&mut self, line: &str) -> String {
        let mut out = String::new();
        let mut tangled = Vec::new();
        let mut rest = line;
        while let Some(found) = self.next_tangled_place(rest) {
            out.push_str(&rest[..found.start]);
            out.push_str(&found.mapped);
            tangled.push(found.tangled);
            rest = &rest[found.end..];
        }
        out.push_str(rest);
        if !tangled.is_empty() {
            out.push_str(&format!("  [tangled: {}]", tangled.join(", ")));
        }
        out
    }

    /// The first place in a tangled file that `text` names and its line map knows: by the output
    /// directory's full path, or, as a backtrace writes a file under the directory the command
    /// runs in, by `./` and its path from there.
    fn next_tangled_place(&mut self, text: &str) -> Option<FoundPlace> {
        let forms = self.written_forms();
        let mut from = 0;
        loop {
            let (start, form, dir) = forms
                .iter()
                .filter_map(|(form, dir)| Some((from + text[from..].find(form)?, form, dir)))
                .min_by_key(|(start, form, _)| (*start, usize::MAX - form.len()))?;
            if let Some(found) = self.place_at(text, start, form, dir) {
                return Some(found);
            }
            from = start + form.len();
        }
    }

    /// How output may write each output directory, with the directory itself.
    fn written_forms(&self) -> Vec<(String, PathBuf)> {
        let here = fs::canonicalize(&self.root).ok();
        let mut forms = Vec::new();
        for dir in &self.out_dirs {
            forms.push((dir.to_string_lossy().into_owned(), dir.clone()));
            let relative = here.as_ref().and_then(|here| dir.strip_prefix(here).ok());
            if let Some(relative) = relative {
                forms.push((format!("./{}", relative.display()), dir.clone()));
            }
        }
        forms
    }

    /// The place `PATH.rs:LINE[:COL]` that starts at `start` in `text`, where the output directory
    /// `dir` is written as `form`, mapped; `None` if there is none there or its file has no map.
    fn place_at(&mut self, text: &str, start: usize, form: &str, dir: &Path) -> Option<FoundPlace> {
        let after_dir = start + form.len();
        let path_end = after_dir + text[after_dir..].find(".rs:")? + 3;
        let path = format!("{}{}", dir.display(), &text[after_dir..path_end]);
        if path.contains(char::is_whitespace) {
            return None;
        }
        let digits = |from: usize| {
            let count = text[from..].bytes().take_while(u8::is_ascii_digit).count();
            (count > 0).then(|| (text[from..from + count].parse::<usize>().ok(), from + count))
        };
        let (line, mut end) = digits(path_end + 1)?;
        let mut col = None;
        if text[end..].starts_with(':')
            && let Some((number, after)) = digits(end + 1)
        {
            col = number;
            end = after;
        }
        let mut place = self.map_for(&path)?.place(line?, col.unwrap_or(1))?;
        place.file = self.named_from_here(Path::new(&path), place.file);
        let mapped = match col {
            Some(_) => place.to_string(),
            None => format!("{}:{}", place.file, place.line),
        };
        let short = format!("OUT_DIR{}", &text[after_dir..end]);
        Some(FoundPlace {
            start,
            end,
            mapped,
            tangled: short,
        })
    }

    fn touches_tangled_file(&mut self, diagnostic: &RustcDiagnostic) -> bool {
        std::iter::once(diagnostic)
            .chain(&diagnostic.children)
            .flat_map(|diagnostic| &diagnostic.spans)
            .any(|span| self.map_for(&span.file_name).is_some())
    }

    fn map_for(&mut self, file: &str) -> Option<&LineMap> {
        let path = PathBuf::from(file);
        if !self.out_dirs.iter().any(|dir| path.starts_with(dir)) {
            return None;
        }
        self.maps
            .entry(path.clone())
            .or_insert_with(|| {
                let map_path = PathBuf::from(format!("{}.map", path.display()));
                LineMap::from_text(&fs::read_to_string(map_path).ok()?)
            })
            .as_ref()
    }

    /// The span with tangled places replaced by Markdown places. A span whose ends land in different
    /// files, or out of order, is narrowed to its first line.
    fn map_span(&mut self, span: &DiagnosticSpan) -> Span {
        let file = span.file_name.clone();
        let (start, end) = (
            (span.line_start, span.column_start),
            (span.line_end, span.column_end),
        );
        let Some(map) = self.map_for(&file) else {
            return Span { file, start, end };
        };
        let (Some(a), Some(b)) = (map.place(start.0, start.1), map.place(end.0, end.1)) else {
            return Span { file, start, end };
        };
        let end = if a.file == b.file && (b.line, b.col) >= (a.line, a.col) {
            (b.line, b.col)
        } else {
            (a.line, usize::MAX)
        };
        Span {
            file: self.named_from_here(Path::new(&file), a.file),
            start: (a.line, a.col),
            end,
        }
    }

    fn group<'a>(&mut self, diagnostic: &'a RustcDiagnostic, primary: bool) -> Group<'a> {
        let level = level(diagnostic.level);
        let text = diagnostic.message.clone();
        let title = if primary {
            level.primary_title(text)
        } else {
            level.secondary_title(text)
        };
        let title = match &diagnostic.code {
            Some(code) => title.id(&code.code),
            None => title,
        };
        let mut group = Group::with_title(title);
        for span in &diagnostic.spans {
            let mapped = self.map_span(span);
            let label = (span.suggested_replacement.as_ref())
                .map(|r| format!("try `{r}`"))
                .or_else(|| span.label.clone());
            let kind = if span.is_primary {
                AnnotationKind::Primary
            } else {
                AnnotationKind::Context
            };
            match snippet(&self.root, &mapped, kind, label.clone()) {
                Some(snippet) => group = group.element(snippet),
                None => group = group.element(Level::NOTE.message(unshown_span(&mapped, label))),
            }
        }
        group
    }
}

/// A span whose file cannot be shown (one of Rust's own library, which rustc names by a
/// `/rustc/HASH/` path that is on no machine): its label, and where it is.
fn unshown_span(span: &Span, label: Option<String>) -> String {
    let in_library = span
        .file
        .strip_prefix("/rustc/")
        .and_then(|rest| rest.split_once("/library/"));
    let (file, whose) = match in_library {
        Some((_, file)) => (file, " of Rust's standard library"),
        None => (span.file.as_str(), ""),
    };
    let place = format!("{file}:{}:{}", span.start.0, span.start.1);
    match label.filter(|label| !label.is_empty()) {
        Some(label) => format!("{label} (at {place}{whose})"),
        None => format!("at {place}{whose}"),
    }
}

/// How annotate-snippets shows a diagnostic of a level.
fn level(level: DiagnosticLevel) -> Level<'static> {
    match level {
        DiagnosticLevel::Warning => Level::WARNING,
        DiagnosticLevel::Note | DiagnosticLevel::FailureNote => Level::NOTE,
        DiagnosticLevel::Help => Level::HELP,
        DiagnosticLevel::Error | DiagnosticLevel::Other => Level::ERROR,
    }
}

/// The lines a span covers, read from the file it names (relative to `root`), with the span annotated.
fn snippet<'a>(
    root: &Path,
    span: &Span,
    kind: AnnotationKind,
    label: Option<String>,
) -> Option<Snippet<'a, annotate_snippets::Annotation<'a>>> {
    let text = fs::read_to_string(root.join(&span.file)).ok()?;
    let lines: Vec<&str> = text.lines().collect();
    let first = span.start.0.checked_sub(1)?;
    let last = (span.end.0.max(span.start.0) - 1).min(lines.len().checked_sub(1)?);
    let shown = lines.get(first..=last)?.join("\n");
    let start = byte_of_column(lines[first], span.start.1);
    let end_line_offset: usize = lines[first..last].iter().map(|l| l.len() + 1).sum();
    let end = end_line_offset + byte_of_column(lines[last], span.end.1);
    let range = start..end.max(start);
    let annotation = kind.span(range);
    let annotation = match label {
        Some(label) => annotation.label(label),
        None => annotation,
    };
    Some(
        Snippet::source(shown)
            .line_start(span.start.0)
            .path(span.file.clone())
            .annotation(annotation),
    )
}

/// The byte offset of a 1-based character column in a line, clamped to the line's end.
fn byte_of_column(line: &str, col: usize) -> usize {
    line.char_indices()
        .nth(col.saturating_sub(1))
        .map_or(line.len(), |(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Place;

    #[test]
    fn a_tangled_place_is_mapped_whether_written_in_full_or_from_here() {
        let crate_dir = tempfile::tempdir().unwrap();
        let out = crate_dir.path().join("target/debug/build/stack-1/out");
        fs::create_dir_all(&out).unwrap();
        let mut map = LineMap::default();
        for line in 1..=3 {
            map.push(&Place::new("book/src/intro.md", 10 + line, 1), 4);
        }
        fs::write(out.join("lib.rs.map"), map.to_text()).unwrap();
        let mut mapper = Mapper::new(crate_dir.path());
        let id = format!("path+file://{}#stack@0.1.0", crate_dir.path().display());
        mapper.add_out_dir(out.clone(), &id);
        let full = format!("panicked at {}/lib.rs:2:9:", out.display());
        assert_eq!(
            mapper.map_places(&full),
            "panicked at book/src/intro.md:12:5:  [tangled: OUT_DIR/lib.rs:2:9]"
        );
        let from_here = "   at ./target/debug/build/stack-1/out/lib.rs:3:5";
        assert_eq!(
            mapper.map_places(from_here),
            "   at book/src/intro.md:13:1  [tangled: OUT_DIR/lib.rs:3:5]"
        );
    }

    #[test]
    fn a_span_in_rust_s_own_library_keeps_its_label_and_a_short_place() {
        let span = |file: &str| Span {
            file: file.to_string(),
            start: (22, 9),
            end: (22, 30),
        };
        let library = span("/rustc/59807616e1fa/library/core/src/internal_macros.rs");
        let label = Some("`&u32` implements `Add<u32>`".to_string());
        assert_eq!(
            unshown_span(&library, label),
            "`&u32` implements `Add<u32>` (at core/src/internal_macros.rs:22:9 of Rust's \
             standard library)"
        );
        assert_eq!(
            unshown_span(&span("/elsewhere/x.rs"), None),
            "at /elsewhere/x.rs:22:9"
        );
    }
}
