//! The mdbook preprocessor that weaves a literate Rust book: `litbook mdbook`, and the same as the
//! program `mdbook-litbook`.
//!
//! mdbook runs it (as `[preprocessor.litbook]` of the book's `book.toml`) with the book as JSON on
//! standard input and reads the woven book from standard output. It tangles the book first, exactly
//! as the build does, and stops with every problem at its Markdown place if there is one: a book
//! with a broken chunk is never published half woven. A book's figures are drawn by its own code, in
//! a separate program that `book.toml` names (`figures`, its package directory); this one builds it
//! with cargo and runs it, and its compile errors are shown at their places in the book too. The
//! figures are kept, and drawn again only when the code they are drawn from changes, so that a prose
//! edit compiles and runs nothing of the book's crate. This program itself depends on no code of
//! any book, so nothing in a book can keep it from starting.
//!
//! The figures program reads a JSON array of figure requests on standard input, each the words of
//! a `{{#figure WORDS}}` directive (an array of strings), and writes a JSON array of as many
//! answers, each `{"html": "..."}` (put in the chapter in place of the directive) or
//! `{"error": "..."}` (reported at the directive's place).
//!
//! mdbook's preprocessor protocol is a JSON pair `[context, book]` in and the book out. This program
//! reads it as plain JSON and changes nothing but the chapters' `content`, so it needs no more than
//! `serde_json`: building the book's first time is then mostly the game's library, not mdbook's.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use anyhow::{Context, bail};
use serde_json::Value;

use crate::cargo_check::{cargo, renderer_for};
use crate::weave::{Chapter, figure_requests, weave, weave_tangled};
use crate::{Figures, Project, TangledFile, Web};

/// The mdbook series whose preprocessor protocol this program speaks: a `[context, book]` pair with
/// the chapters under the book's `items`. mdbook has changed that protocol between series, and a book
/// woven under a protocol this program misreads would be published unwoven, so any other is refused.
const MDBOOK_SERIES: &str = "0.5.";

/// How the preprocessor is used, as the program called `name` (`litbook mdbook` or
/// `mdbook-litbook`).
fn usage(name: &str) -> String {
    format!(
        "\
usage: {name}            weave the book mdbook sends on standard input
       {name} supports RENDERER

mdbook runs this program as the preprocessor [preprocessor.litbook] of book.toml:

  [preprocessor.litbook]
  command = \"{name}\"
  crate = \"..\"              # the crate the book belongs to, from the book's root
  figures = \"../figures\"    # optional: the package that draws {{{{#figure ...}}}}
  theme = \"theme\"           # optional: where chunks.css and chunks.js are kept
  edition = \"2021\"          # optional: the edition rustfmt formats chunks for
"
    )
}

/// Runs the preprocessor as the program called `name` (`litbook mdbook` or `mdbook-litbook`),
/// with `args` after the name: as mdbook runs it, or asked whether it supports a renderer.
pub fn run(name: &str, args: &[String]) -> ExitCode {
    match args.first().map(String::as_str) {
        None => {}
        Some("supports") => return ExitCode::SUCCESS,
        Some("-h" | "--help") => {
            print!("{}", usage(name));
            return ExitCode::SUCCESS;
        }
        Some(_) => {
            eprint!("{}", usage(name));
            return ExitCode::from(2);
        }
    }
    let (context, mut book) = match read_input() {
        Ok(input) => input,
        Err(error) => {
            eprintln!("{name}: cannot read the book from mdbook: {error:#}");
            return ExitCode::FAILURE;
        }
    };
    if let Err(why) = check_protocol(&context, &book) {
        eprintln!("{name}: {why}");
        return ExitCode::FAILURE;
    }
    let project = match Project::open(&crate_dir(&context)) {
        Ok(project) => project,
        Err(problem) => {
            eprintln!("error: {problem}");
            eprintln!("{name}: the book's configuration cannot be read, so it is not built");
            return ExitCode::FAILURE;
        }
    };
    if let Err(problems) = weave_book(&project, &context, &mut book) {
        eprintln!(
            "{name}: the book was not built: {problems} problem(s), shown above at their places"
        );
        return ExitCode::FAILURE;
    }
    match serde_json::to_writer(io::stdout(), &book) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{name}: cannot write the woven book: {error}");
            ExitCode::FAILURE
        }
    }
}

/// The context and the book that mdbook sends: `[context, book]`.
fn read_input() -> anyhow::Result<(Value, Value)> {
    let input: Value = serde_json::from_reader(io::stdin())?;
    match input {
        Value::Array(pair) if pair.len() == 2 => {
            let mut pair = pair.into_iter();
            let context = pair.next().expect("two items");
            let book = pair.next().expect("two items");
            Ok((context, book))
        }
        _ => bail!("expected a JSON array of the context and the book"),
    }
}

/// That mdbook speaks the protocol this program was written for: its version is of
/// [`MDBOOK_SERIES`], and the book it sent has its chapters where that protocol puts them.
fn check_protocol(context: &Value, book: &Value) -> Result<(), String> {
    let version = context["mdbook_version"]
        .as_str()
        .unwrap_or("of an unknown version");
    if !version.starts_with(MDBOOK_SERIES) {
        return Err(format!(
            "written for mdbook {MDBOOK_SERIES}x, whose preprocessor protocol it speaks; this is \
             mdbook {version}, so the book is not built (install mdbook 0.5.4: `cargo install \
             mdbook --version 0.5.4 --locked`)"
        ));
    }
    if !book["items"].is_array() {
        return Err(
            "mdbook sent a book without an `items` list of chapters, which this program cannot \
             read; the book is not built"
                .into(),
        );
    }
    Ok(())
}

/// The crate whose book this is: `crate` in the preprocessor's table of `book.toml`, relative to the
/// book's root, or the directory above the book.
fn crate_dir(context: &Value) -> PathBuf {
    let root = PathBuf::from(context["root"].as_str().unwrap_or("."));
    let configured = context["config"]["preprocessor"][crate::PREPROCESSOR]["crate"].as_str();
    root.join(configured.unwrap_or(".."))
}

/// Tangles the book as the build does, keeps its theme files, draws its figures and weaves every
/// chapter in place. On any problem, prints every one of them and returns how many there were.
fn weave_book(project: &Project, context: &Value, book: &mut Value) -> Result<(), usize> {
    let crate_dir = &project.crate_dir;
    let outcome = crate::tangle_project_on_disk(project, &|_| false);
    if !outcome.problems.is_empty() {
        for problem in &outcome.problems {
            eprintln!("error: {problem}");
        }
        return Err(outcome.problems.len());
    }
    let mut chapters = Vec::new();
    visit_chapters(&mut book["items"], &mut |chapter| {
        chapters.extend(as_chapter(chapter))
    });
    keep_theme(project, context)?;
    keep_scripts(project, &outcome.scripts, context)?;
    let missing = missing_chapters(project, &outcome.web, &chapters);
    if !missing.is_empty() {
        for (chapter, place) in &missing {
            eprintln!(
                "error: {place}: mdbook did not send {chapter}, which the tangled book has; the \
                 book is not built, as it would be published without it"
            );
        }
        return Err(missing.len());
    }
    let requests = figure_requests(&chapters);
    let drawn = match &project.figures {
        Some(figures) => draw_figures(project, figures, &outcome.files, &requests)?,
        None => HashMap::new(),
    };
    let mut figures = |words: &[&str]| match (drawn.get(&words.join(" ")), &project.figures) {
        (Some(answer), _) => answer.clone(),
        (None, Some(_)) => Err("the figures program did not draw it".to_string()),
        (None, None) => Err(format!(
            "the book names no program to draw it: set `figures` in [preprocessor.{}] of \
             book.toml to the package directory of one",
            crate::PREPROCESSOR
        )),
    };
    let roles = crate::weave::root_roles(crate_dir);
    let (woven, problems) = if is_what_was_tangled(&chapters, &project.src, &outcome.web) {
        weave_tangled(
            &chapters,
            &outcome.web,
            &outcome.files,
            &roles,
            &mut figures,
        )
    } else {
        weave(&chapters, &project.src, &roles, &mut figures)
    };
    if !problems.is_empty() {
        for problem in &problems {
            eprintln!("error: {problem}");
        }
        return Err(problems.len());
    }
    let mut by_path: HashMap<String, String> =
        chapters.into_iter().map(|c| c.path).zip(woven).collect();
    visit_chapters(&mut book["items"], &mut |chapter| {
        let path = as_chapter(chapter).map(|c| c.path);
        if let Some(content) = path.and_then(|p| by_path.remove(&p)) {
            chapter["content"] = Value::String(content);
        }
    });
    Ok(())
}

/// Whether mdbook sent the chapters exactly as the tangler read them from disk, in the same order,
/// so that the tangler's web and files serve the weaver too. Another preprocessor that ran first
/// (mdbook's `{{#include}}`, say) may have changed a chapter: the weaver then reads mdbook's text.
fn is_what_was_tangled(chapters: &[Chapter], display_dir: &str, web: &Web) -> bool {
    chapters.len() == web.chapters.len()
        && chapters.iter().zip(&web.chapters).all(|(chapter, read)| {
            read.display == format!("{display_dir}/{}", chapter.path)
                && read.text == chapter.content
        })
}

/// Writes the book's theme files if they are not this weaver's, and checks that mdbook's HTML
/// renderer is told to load them. The woven chunks need them: without the script, references are
/// not links.
fn keep_theme(project: &Project, context: &Value) -> Result<(), usize> {
    if let Err(why) = crate::theme::write_theme(project) {
        eprintln!("error: {why}");
        return Err(1);
    }
    let html = &context["config"]["output"]["html"];
    if context["renderer"] != "html" || html.is_null() {
        return Ok(());
    }
    let strings = |key: &str| -> Vec<String> {
        let list = html[key].as_array().into_iter().flatten();
        list.filter_map(|v| v.as_str().map(str::to_string))
            .collect()
    };
    let unnamed = crate::theme::unnamed_theme_files(
        project,
        &strings("additional-css"),
        &strings("additional-js"),
    );
    for setting in &unnamed {
        eprintln!(
            "error: {}/book.toml: the woven chunks need the weaver's theme files; add {setting}",
            project.book_root
        );
    }
    if unnamed.is_empty() {
        Ok(())
    } else {
        Err(unnamed.len())
    }
}

/// Writes the book's scripts (its roots in JavaScript, such as a web page's part of the program) into
/// its theme directory, for mdbook's HTML renderer to publish, and checks that `additional-js` names
/// each: mdbook copies only the theme files it is told of.
fn keep_scripts(project: &Project, scripts: &[TangledFile], context: &Value) -> Result<(), usize> {
    let dir = project.crate_dir.join(&project.theme);
    let mut problems = 0;
    for script in scripts {
        let path = dir.join(&script.name);
        if let Err(why) = crate::write_if_changed(&path, &script.text) {
            eprintln!("error: cannot write {}: {why}", path.display());
            problems += 1;
        }
    }
    let html = &context["config"]["output"]["html"];
    if context["renderer"] == "html" && !html.is_null() {
        let named: Vec<&str> = html["additional-js"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(|p| p.trim_start_matches("./"))
            .collect();
        let relative = Path::new(&project.theme)
            .strip_prefix(&project.book_root)
            .map_or_else(
                |_| project.theme.clone(),
                |p| p.to_string_lossy().replace('\\', "/"),
            );
        for script in scripts {
            let path = format!("{relative}/{}", script.name);
            if !named.contains(&path.as_str()) {
                eprintln!(
                    "error: {}/book.toml: the book's script {} is not published; add `additional-js = [\"{path}\"]` under [output.html]",
                    project.book_root, script.name
                );
                problems += 1;
            }
        }
    }
    if problems == 0 { Ok(()) } else { Err(problems) }
}

/// The chapters the tangler read that mdbook did not send, each with the place of its first line.
fn missing_chapters(project: &Project, web: &Web, sent: &[Chapter]) -> Vec<(String, crate::Place)> {
    let prefix = format!("{}/", project.src);
    web.chapters
        .iter()
        .filter(|chapter| {
            let path = chapter.display.strip_prefix(&prefix);
            !sent.iter().any(|c| Some(c.path.as_str()) == path)
        })
        .map(|chapter| (chapter.display.clone(), chapter.place(0)))
        .collect()
}

/// Calls `visit` on every chapter among a list of book items, each before its own chapters (its
/// `sub_items`). Items are `{"Chapter": {...}}`, `"Separator"` or `{"PartTitle": "..."}`.
fn visit_chapters(items: &mut Value, visit: &mut dyn FnMut(&mut Value)) {
    for item in items.as_array_mut().into_iter().flatten() {
        if let Some(chapter) = item.get_mut("Chapter") {
            visit(chapter);
            visit_chapters(&mut chapter["sub_items"], visit);
        }
    }
}

/// A chapter as the weaver takes it; `None` for a draft (a chapter without a file).
fn as_chapter(chapter: &Value) -> Option<Chapter> {
    Some(Chapter {
        path: chapter["path"].as_str()?.replace('\\', "/"),
        title: chapter["name"].as_str().unwrap_or("").to_string(),
        content: chapter["content"].as_str().unwrap_or("").to_string(),
    })
}

/// Builds the figures program and has it draw every figure asked for; the answers are keyed by the
/// directive's words joined with spaces. Compile errors are printed at their Markdown places, and
/// their number returned. Figures drawn from the same code before are taken as they were (see
/// [`Drawn`]): a prose edit builds and runs nothing.
fn draw_figures(
    project: &Project,
    figures: &Figures,
    tangled: &[TangledFile],
    requests: &[Vec<String>],
) -> Result<HashMap<String, Result<String, String>>, usize> {
    if requests.is_empty() {
        return Ok(HashMap::new());
    }
    let sources = sources_hash(project, figures, tangled);
    let before = Drawn::read(figures).filter(|drawn| drawn.is_drawn_from(sources));
    let keys: Vec<String> = requests.iter().map(|words| words.join(" ")).collect();
    if let Some(answers) = before.as_ref().and_then(|drawn| drawn.answers_to(&keys)) {
        return Ok(answers);
    }
    let program = match before {
        Some(drawn) => drawn.program,
        None => build_figures(project, figures)?,
    };
    let answers = run_figures(&program, requests)
        .with_context(|| format!("the figures program {}", program.display()))
        .map_err(|error| {
            eprintln!("error: {error:#}");
            1_usize
        })?;
    let answers: HashMap<_, _> = keys.into_iter().zip(answers).collect();
    if let Some(key) = drawn_key(sources, &program) {
        Drawn::write(figures, key, &program, &answers);
    }
    Ok(answers)
}

/// Figures drawn by an earlier build, with what they were drawn from. They are kept in a file beside
/// this program's own, in cargo's target directory, and taken again only while everything the
/// figures program is built from and the program itself are as they were: the book's code as
/// tangled (prose is not part of it), the crate's own files (manifest, lock file, build script, the
/// shells in `src/`) and the figures program's source, and the program's file as built. Cargo would
/// build the program again after any edit to the book, as the build script reruns; this is what
/// spares a prose edit that.
struct Drawn {
    key: u64,
    program: PathBuf,
    answers: HashMap<String, Result<String, String>>,
}

impl Drawn {
    /// Where the figures drawn by `figures` are kept: beside this program, if it knows where it is.
    fn path(figures: &Figures) -> Option<PathBuf> {
        let exe = std::env::current_exe().ok()?;
        Some(exe.with_file_name(format!("{}.drawn.json", figures.package)))
    }

    /// The figures kept, if there are any and they can be read.
    fn read(figures: &Figures) -> Option<Drawn> {
        let kept: Value =
            serde_json::from_slice(&std::fs::read(Drawn::path(figures)?).ok()?).ok()?;
        let answers = kept["answers"].as_object()?;
        Some(Drawn {
            key: kept["key"].as_str()?.parse().ok()?,
            program: PathBuf::from(kept["program"].as_str()?),
            answers: answers
                .iter()
                .map(|(k, v)| (k.clone(), answer(v)))
                .collect(),
        })
    }

    /// Whether these figures were drawn from `sources` by the program as it is now.
    fn is_drawn_from(&self, sources: u64) -> bool {
        drawn_key(sources, &self.program) == Some(self.key)
    }

    /// The answers to every one of `keys`, if all were drawn.
    fn answers_to(&self, keys: &[String]) -> Option<HashMap<String, Result<String, String>>> {
        let answer = |key: &String| Some((key.clone(), self.answers.get(key)?.clone()));
        keys.iter().map(answer).collect()
    }

    /// Keeps `answers`, drawn by `program` with `key`. Written whole, then renamed into place, so
    /// that a build running at the same time never reads half of it; a figure that cannot be kept
    /// is drawn again next time.
    fn write(
        figures: &Figures,
        key: u64,
        program: &Path,
        answers: &HashMap<String, Result<String, String>>,
    ) {
        let Some(path) = Drawn::path(figures) else {
            return;
        };
        let answers: serde_json::Map<String, Value> = answers
            .iter()
            .map(|(key, answer)| (key.clone(), as_json(answer)))
            .collect();
        let kept = serde_json::json!({
            "key": key.to_string(),
            "program": program.display().to_string(),
            "answers": answers,
        });
        let partial = path.with_extension(format!("{}.partial", std::process::id()));
        let written = std::fs::write(&partial, kept.to_string()).is_ok();
        if !(written && std::fs::rename(&partial, &path).is_ok()) {
            let _ = std::fs::remove_file(&partial);
        }
    }
}

/// A hash of what the figures program is built from, but for the program itself: the tangled
/// files, and the crate's own files and the figures program's source, each with its path.
fn sources_hash(project: &Project, figures: &Figures, tangled: &[TangledFile]) -> u64 {
    let crate_dir = &project.crate_dir;
    let mut hasher = DefaultHasher::new();
    for file in tangled {
        (&file.name, &file.text).hash(&mut hasher);
    }
    let mut own = ["Cargo.toml", "Cargo.lock", "build.rs"]
        .map(|f| crate_dir.join(f))
        .to_vec();
    own.extend(files_in(&crate_dir.join("src"), false));
    own.extend(files_in(&crate_dir.join(&figures.dir), true));
    for file in own {
        (&file, std::fs::read(&file).ok()).hash(&mut hasher);
    }
    hasher.finish()
}

/// The key of figures drawn from `sources` by `program`: the sources' hash with the program's size
/// and time, or `None` when the program is not there.
fn drawn_key(sources: u64, program: &Path) -> Option<u64> {
    let meta = std::fs::metadata(program).ok()?;
    let mut hasher = DefaultHasher::new();
    (sources, program, meta.len(), meta.modified().ok()).hash(&mut hasher);
    Some(hasher.finish())
}

/// The files in `dir`, in order, and in its subdirectories too when `deep` (but for `target`).
fn files_in(dir: &Path, deep: bool) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_file() {
            files.push(path);
        } else if deep && path.is_dir() && !path.ends_with("target") {
            files.extend(files_in(&path, true));
        }
    }
    files
}

/// Builds the figures program with cargo (its progress shows as it compiles) and returns its path.
fn build_figures(project: &Project, figures: &Figures) -> Result<PathBuf, usize> {
    let crate_dir = &project.crate_dir;
    let manifest = crate_dir.join(&figures.dir).join("Cargo.toml");
    let args = [
        "--manifest-path".to_string(),
        manifest.display().to_string(),
        "--bin".to_string(),
        figures.package.clone(),
    ];
    let mut stderr = io::stderr();
    let renderer = renderer_for(&stderr);
    let report = match cargo("build", &args, crate_dir, &renderer, &mut stderr) {
        Ok(report) => report,
        Err(error) => {
            eprintln!("error: cannot run cargo to build the figures program: {error}");
            return Err(1);
        }
    };
    let program = report
        .executables
        .into_iter()
        .find_map(|(name, path)| (name == figures.package).then_some(path));
    match program {
        Some(program) if report.success => Ok(program),
        _ => {
            eprintln!(
                "error: the figures program {}, which draws with the book's code, did not build",
                figures.package
            );
            Err(report.errors.max(1))
        }
    }
}

/// Runs the figures program on the requests and reads its answers, one for each request.
fn run_figures(
    program: &Path,
    requests: &[Vec<String>],
) -> anyhow::Result<Vec<Result<String, String>>> {
    let mut child = Command::new(program)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .context("cannot start")?;
    let input = serde_json::to_vec(requests).expect("words are JSON");
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(&input)
        .context("cannot be given the figures")?;
    let output = child.wait_with_output().context("did not finish")?;
    if !output.status.success() {
        bail!("failed ({})", output.status);
    }
    let answers: Vec<serde_json::Value> = serde_json::from_slice(&output.stdout)
        .context("answered with something other than JSON")?;
    if answers.len() != requests.len() {
        bail!(
            "drew {} figures for {} requests",
            answers.len(),
            requests.len()
        );
    }
    Ok(answers.iter().map(answer).collect())
}

/// One answer of the figures program: `{"html": …}` or `{"error": …}`.
fn answer(value: &serde_json::Value) -> Result<String, String> {
    match (value["html"].as_str(), value["error"].as_str()) {
        (Some(html), _) => Ok(html.to_string()),
        (None, Some(error)) => Err(error.to_string()),
        (None, None) => Err(format!("an answer that is neither html nor error: {value}")),
    }
}

/// An answer as the figures program gave it, to be kept.
fn as_json(answer: &Result<String, String>) -> Value {
    match answer {
        Ok(html) => serde_json::json!({ "html": html }),
        Err(error) => serde_json::json!({ "error": error }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SourceText;

    #[test]
    fn the_tangler_s_reading_serves_the_weaver_only_when_mdbook_sent_the_same_text() {
        let text = "# A\n\n```rust\n// <<file:a.rs>>=\nfn a() {}\n```\n";
        let (web, _) = Web::parse(vec![SourceText::new("book/src/a.md", text)]);
        let chapter = |content: &str| Chapter {
            path: "a.md".to_string(),
            title: "A".to_string(),
            content: content.to_string(),
        };
        assert!(is_what_was_tangled(&[chapter(text)], "book/src", &web));
        let included = text.replace("fn a() {}", "fn a() {} // from {{#include}}");
        assert!(!is_what_was_tangled(
            &[chapter(&included)],
            "book/src",
            &web
        ));
        assert!(!is_what_was_tangled(&[chapter(text)], "docs/src", &web));
        assert!(!is_what_was_tangled(&[], "book/src", &web));
    }
}
