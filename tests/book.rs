//! The book as a reader gets it: built with mdbook into a temporary directory, with every chapter
//! there, every chunk captioned, every link between chunks landing on an anchor, no chunk marker left
//! raw in the code, and every figure drawn. And the book as an editor gets it: a broken copy never
//! builds, and says where it is broken; a prose edit compiles nothing, and a code edit draws the
//! figures again; building the book never compiles the game's window.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use litbook::{SourceText, Web, chapter_links, fenced_blocks};

#[path = "../src/litbook/tests/support/shared_build.rs"]
mod shared_build;

fn book_src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("book/src")
}

/// The chapters SUMMARY.md lists, as (path, text).
fn chapters() -> Vec<(String, String)> {
    let summary = fs::read_to_string(book_src().join("SUMMARY.md")).expect("SUMMARY.md");
    chapter_links(&SourceText::new("SUMMARY.md", summary))
        .into_iter()
        .map(|(path, _)| {
            let text = fs::read_to_string(book_src().join(&path)).expect("a listed chapter");
            (path, text)
        })
        .collect()
}

fn build(dest: &Path) {
    let output = mdbook_build(Path::new(env!("CARGO_MANIFEST_DIR")), dest);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "mdbook build failed:\n{stderr}");
    assert!(
        !stderr.contains("mdbook-litbook:"),
        "the weaver reported problems:\n{stderr}"
    );
}

/// Runs `mdbook build` on the book of the crate in `crate_dir`.
fn mdbook_build(crate_dir: &Path, dest: &Path) -> std::process::Output {
    mdbook_command(crate_dir, dest)
        .output()
        .expect("mdbook runs (bash .ci/run installs it)")
}

/// The `mdbook build` of the book of the crate in `crate_dir` into `dest`, to be run.
fn mdbook_command(crate_dir: &Path, dest: &Path) -> Command {
    let mut command = Command::new("mdbook");
    litbook::cargo_command::forget_the_program_cargo_ran(&mut command);
    command
        .args(["build", "book", "--dest-dir"])
        .arg(dest)
        .current_dir(crate_dir);
    command
}

/// The labels a page's figures write at the height `y`: on a board's figure, `"20.0"` is the middle
/// of the top row, a row of the edge.
fn labels_at_height<'a>(html: &'a str, y: &str) -> Vec<&'a str> {
    let at = format!(" y=\"{y}\" text-anchor=\"middle\"");
    html.split("<text x=\"")
        .skip(1)
        .filter(|text| text.split('>').next().is_some_and(|tag| tag.contains(&at)))
        .filter_map(|text| text.split_once('>')?.1.split('<').next())
        .collect()
}

/// Every `href="…"` of a page.
fn hrefs(html: &str) -> Vec<&str> {
    html.split("href=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .collect()
}

/// The text of every Rust code block of a page.
fn rust_code(html: &str) -> Vec<&str> {
    html.split("<code class=\"language-rust")
        .skip(1)
        .filter_map(|rest| rest.split("</code>").next())
        .collect()
}

/// A page without its code elements, where the book shows directives as examples.
fn outside_code(html: &str) -> String {
    let mut rest = html;
    let mut out = String::new();
    while let Some(start) = rest.find("<code") {
        out.push_str(&rest[..start]);
        rest = rest[start..]
            .split_once("</code>")
            .map_or("", |(_, after)| after);
    }
    out.push_str(rest);
    out
}

#[test]
#[ignore = "needs mdbook 0.5.4: bash .ci/run installs it"]
fn the_built_book_has_every_chapter_caption_link_and_figure() {
    let dest = tempfile::tempdir().expect("a temporary directory");
    build(dest.path());
    let chapters = chapters();
    let page = |path: &str| dest.path().join(path.replace(".md", ".html"));
    let pages: Vec<(String, String)> = chapters
        .iter()
        .map(|(path, _)| {
            let html = fs::read_to_string(page(path))
                .unwrap_or_else(|_| panic!("{path} is in the built book"));
            (path.clone(), html)
        })
        .collect();

    let sources = chapters
        .iter()
        .map(|(p, t)| SourceText::new(p.clone(), t.clone()))
        .collect();
    let (web, problems) = Web::parse(sources);
    assert!(problems.is_empty(), "{problems:?}");
    let captions: usize = pages
        .iter()
        .map(|(_, html)| html.matches("<div class=\"chunk-caption\">").count())
        .sum();
    assert_eq!(
        captions,
        web.parts.len(),
        "every part of every chunk has a caption"
    );

    let built: HashMap<String, &str> = pages
        .iter()
        .map(|(path, html)| (path.replace(".md", ".html"), html.as_str()))
        .collect();
    let mut links = 0;
    for (path, html) in &pages {
        let data_hrefs = data_hrefs(html);
        let all = hrefs(html)
            .into_iter()
            .chain(data_hrefs.iter().map(String::as_str));
        for href in all.filter(|h| !h.contains("://")) {
            let (file, anchor) = href.split_once('#').unwrap_or((href, ""));
            if !(file.is_empty() || file.ends_with(".html")) {
                continue;
            }
            let from_disk;
            let target: &str = match (file, built.get(file)) {
                ("", _) => html,
                (_, Some(page)) => page,
                _ => {
                    from_disk = fs::read_to_string(dest.path().join(file))
                        .unwrap_or_else(|_| panic!("{path}: the link {href} leads to no page"));
                    &from_disk
                }
            };
            assert!(
                anchor.is_empty() || target.contains(&format!("id=\"{anchor}\"")),
                "{path}: the link {href} lands on no anchor"
            );
            links += usize::from(href.contains("#chunk-") || href.contains("#ident-"));
        }
        for code in rust_code(html) {
            assert!(
                !code.contains("&gt;&gt;="),
                "{path}: a chunk's header is left in its code"
            );
        }
    }
    let references: usize = web
        .parts
        .iter()
        .flat_map(|p| &p.body)
        .filter(|l| l.reference.is_some())
        .count();
    assert!(
        links >= references + web.parts.len(),
        "{links} links for {references} references"
    );

    for ((path, text), (_, html)) in chapters.iter().zip(&pages) {
        let code: Vec<_> = fenced_blocks(text).into_iter().map(|b| b.range).collect();
        let mut offset = 0;
        let mut asked = 0;
        for line in text.split_inclusive('\n') {
            let in_code = code.iter().any(|r| r.contains(&offset));
            asked += usize::from(!in_code && line.trim().starts_with("{{#figure"));
            offset += line.len();
        }
        let drawn = html.matches("<figure class=\"chunk-figure").count();
        assert_eq!(drawn, asked, "{path}: every figure asked for is drawn");
        assert!(
            !outside_code(html).contains("{{#figure"),
            "{path}: a figure directive is left"
        );
    }
    let counting_steps = [
        ("bfs.md", 1),
        ("solver.md", 3),
        ("perfect-cats-escape.md", 1),
    ];
    for (path, figures) in counting_steps {
        let page = page_of(&pages, path);
        for figure in page
            .split("<figure class=\"chunk-figure\"")
            .skip(1)
            .take(figures)
        {
            let top_row = labels_at_height(figure, "20.0");
            assert!(
                !top_row.is_empty() && top_row.iter().all(|&label| label == "0"),
                "{path}: a figure that counts steps to the edge labels the edge 0, as every such \
                 figure of the book does: {top_row:?}"
            );
        }
    }
    let index = page_of(&pages, "chunks.md");
    let mut listed = Vec::new();
    for name in web.names() {
        let escaped = litbook::weave::escape(name);
        let entry = format!("⟨{escaped}⟩</a> in ");
        let at = index.find(&entry);
        assert!(at.is_some(), "the index lists ⟨{name}⟩");
        listed.push((at, name.to_lowercase()));
    }
    listed.sort();
    let names: Vec<&String> = listed.iter().map(|(_, name)| name).collect();
    assert!(
        names.is_sorted(),
        "the index of chunks is in alphabetical order"
    );

    let identifiers = page_of(&pages, "identifiers.md");
    let entry = identifiers
        .split("<li id=\"ident-build_bfs_table\">")
        .nth(1)
        .and_then(|rest| rest.split("</li>").next())
        .expect("the index of identifiers lists build_bfs_table");
    assert!(
        entry.contains(
            "function in <a href=\"search.html#chunk-build-the-distance-map-1\"><strong>"
        ),
        "{entry}"
    );
    assert!(entry.contains("used in"), "{entry}");
}

/// The built page of a chapter, among (chapter, HTML) pairs.
fn page_of<'p>(pages: &'p [(String, String)], chapter: &str) -> &'p str {
    let page = pages.iter().find(|(path, _)| path == chapter);
    page.map(|(_, html)| html.as_str())
        .unwrap_or_else(|| panic!("{chapter} is in the built book"))
}

/// The hrefs the weaver leaves in the `data-refs` and `data-idents` of the chunks of a page, for
/// `chunks.js` to make links of.
fn data_hrefs(html: &str) -> Vec<String> {
    let mut found = Vec::new();
    for attribute in ["data-refs=\"", "data-idents=\""] {
        for rest in html.split(attribute).skip(1) {
            let json = rest
                .split('"')
                .next()
                .unwrap_or_default()
                .replace("&quot;", "\"");
            let json = json
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&amp;", "&");
            let data: serde_json::Value = serde_json::from_str(&json).expect("data is JSON");
            hrefs_in(&data, &mut found);
        }
    }
    found
}

/// Every `href` in the weaver's data, at any depth (an identifier's are by how it is written).
fn hrefs_in(data: &serde_json::Value, found: &mut Vec<String>) {
    let Some(map) = data.as_object() else {
        return;
    };
    found.extend(
        map.get("href")
            .and_then(|href| href.as_str())
            .map(str::to_string),
    );
    for value in map.values() {
        hrefs_in(value, found);
    }
}

/// A copy of the whole crate (its manifest, build script, shells, tools and book) in a temporary
/// directory, to be broken on purpose; `copy` tells its compiled files apart from the crate's and
/// the other copies'.
fn copy_of_the_crate(copy: &str) -> tempfile::TempDir {
    let from = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().expect("a temporary directory");
    for file in ["Cargo.toml", "Cargo.lock", "build.rs"] {
        fs::copy(from.join(file), dir.path().join(file)).expect("copy a file of the crate");
    }
    for tree in ["src", "tests", "book/src", "book/theme"] {
        copy_tree(&from.join(tree), &dir.path().join(tree));
    }
    fs::copy(
        from.join("book/book.toml"),
        dir.path().join("book/book.toml"),
    )
    .expect("copy book.toml");
    shared_build::tell_apart(dir.path(), copy);
    dir
}

/// `mdbook build` of the copy in `crate_dir`, compiling only what the copy changes, its final files
/// in `own` under the tests' temporary directory.
fn mdbook_command_sharing(crate_dir: &Path, dest: &Path, own: &str) -> Command {
    let mut command = mdbook_command(crate_dir, dest);
    let tests_tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    shared_build::share_compiled_dependencies(&mut command, tests_tmp, own);
    command
}

fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).expect("make a directory");
    for entry in fs::read_dir(from).expect("read a directory").flatten() {
        let path = entry.path();
        let name = entry.file_name();
        // Build output, and the fuzzing harness with its corpus, are no part of the crate.
        if name == "target" || name == "fuzz" {
            continue;
        }
        if path.is_dir() {
            copy_tree(&path, &to.join(name));
        } else {
            fs::copy(&path, to.join(name)).expect("copy a file");
        }
    }
}

/// Replaces `old` (which must be there) by `new` in a chapter of the copy, and returns the 1-based
/// line where it stands.
fn break_chapter(crate_dir: &Path, chapter: &str, old: &str, new: &str) -> usize {
    let path = crate_dir.join("book/src").join(chapter);
    let text = fs::read_to_string(&path).expect("the chapter");
    let at = text
        .find(old)
        .unwrap_or_else(|| panic!("{old:?} is in {chapter}"));
    fs::write(&path, text.replacen(old, new, 1)).expect("write the chapter");
    text[..at].matches('\n').count() + 1
}

#[test]
#[ignore = "needs mdbook 0.5.4: bash .ci/run installs it"]
fn a_broken_book_never_builds_and_says_where_it_is_broken() {
    let copy = copy_of_the_crate("broken");
    let build = |dest: &Path| {
        let output = mdbook_command_sharing(copy.path(), dest, "broken-book-target")
            .output()
            .expect("mdbook runs (bash .ci/run installs it)");
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(
            !output.status.success(),
            "mdbook build succeeded:\n{stderr}"
        );
        assert!(!dest.join("input.html").exists(), "no page was written");
        stderr
    };
    let dest = tempfile::tempdir().expect("a temporary directory");

    let line = break_chapter(
        copy.path(),
        "files.md",
        "// <<the world after the cat's move>>\n",
        "// <<the wurld after the cat's move>>\n",
    );
    let stderr = build(dest.path());
    let expected = format!(
        "error: book/src/files.md:{line}:1: undefined chunk ⟨the wurld after the cat's move⟩; did you mean ⟨the world after the cat's move⟩?"
    );
    assert!(
        stderr.contains(&expected),
        "{expected}\nis not in:\n{stderr}"
    );

    break_chapter(
        copy.path(),
        "files.md",
        "// <<the wurld after the cat's move>>\n",
        "// <<the world after the cat's move>>\n",
    );
    let line = break_chapter(
        copy.path(),
        "input.md",
        "cat_stepped_to(world, next_cat_position)",
        "cat_stepped_to(world, 5)",
    );
    let stderr = build(dest.path());
    assert!(
        stderr.contains("error[E0308]: mismatched types"),
        "{stderr}"
    );
    let place = format!("--> book/src/input.md:{line}:");
    assert!(stderr.contains(&place), "{place}\nis not in:\n{stderr}");
    assert!(
        !stderr.contains("/out/input.rs"),
        "no place is given in the tangled file:\n{stderr}"
    );
}

/// The figures of a page, each `<figure class="chunk-figure">` element whole.
fn figures_of(html: &str) -> Vec<&str> {
    html.split("<figure class=\"chunk-figure\">")
        .skip(1)
        .filter_map(|rest| rest.split("</figure>").next())
        .collect()
}

#[test]
#[ignore = "needs mdbook 0.5.4: bash .ci/run installs it"]
fn a_prose_edit_compiles_nothing_and_a_code_edit_draws_the_figures_again() {
    // A copy of its own, told apart from the others: another test's builds would change the
    // figures program under this one.
    let copy = copy_of_the_crate("edited");
    let build = || {
        let dest = tempfile::tempdir().expect("a temporary directory");
        let output = mdbook_command_sharing(copy.path(), dest.path(), "edited-book-target")
            .output()
            .expect("mdbook runs (bash .ci/run installs it)");
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(output.status.success(), "mdbook build failed:\n{stderr}");
        let page = fs::read_to_string(dest.path().join("drawing-world.html")).expect("the page");
        (stderr, page)
    };
    let (_, first) = build();
    assert!(!figures_of(&first).is_empty(), "the page has a figure");

    let sentence = "A sentence added to the prose.";
    break_chapter(
        copy.path(),
        "drawing-world.md",
        "{{#figure world 11 1}}",
        &format!("{{{{#figure world 11 1}}}}\n\n{sentence}"),
    );
    let (stderr, page) = build();
    assert!(page.contains(sentence), "the edit is in the book");
    assert!(!stderr.contains("Compiling"), "nothing compiled:\n{stderr}");
    assert_eq!(figures_of(&page), figures_of(&first));

    break_chapter(
        copy.path(),
        "drawing-world.md",
        "pub const BLOCKED_COLOR: Color = BLACK;",
        "pub const BLOCKED_COLOR: Color = WHITE;",
    );
    let (stderr, page) = build();
    assert!(
        stderr.contains("Compiling chat-noir-figures"),
        "the figures program is built again:\n{stderr}"
    );
    assert_ne!(figures_of(&page), figures_of(&first));
}

#[test]
fn building_the_book_or_the_library_compiles_no_window() {
    let book = ["mdbook-litbook", "chat-noir-figures", "chat-noir"];
    let tree = dependency_tree(&book, &[]);
    assert!(
        tree.contains("chat-noir v"),
        "the figures use the game:\n{tree}"
    );
    for window in WINDOW_CRATES {
        assert!(
            !tree.lines().any(|line| line.starts_with(window)),
            "{window} is in the build of the book or of the library:\n{tree}"
        );
    }
    let with_window = dependency_tree(&["chat-noir"], &["--features", "window"]);
    for window in WINDOW_CRATES {
        assert!(
            with_window.lines().any(|line| line.starts_with(window)),
            "{window} is not in the game's window, so its absence above proves nothing:\n{with_window}"
        );
    }
}

/// The crates of the game's window, as `cargo tree --prefix none` starts their lines.
const WINDOW_CRATES: [&str; 5] = ["piston", "winit", "wgpu", "ash ", "glow "];

/// The crates that building `packages` (with `options`, and without tests) compiles, as `cargo tree`
/// lists them.
fn dependency_tree(packages: &[&str], options: &[&str]) -> String {
    let mut command = Command::new(env!("CARGO"));
    command.args(["tree", "--edges", "normal,build", "--prefix", "none"]);
    for package in packages {
        command.args(["--package", package]);
    }
    let output = command
        .args(options)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The most lines a chunk part may have, so that a reader can hold it in mind; test code, which reads
/// as a list of cases, may run longer.
const LONGEST_PART: usize = 40;
const LONGEST_TEST_PART: usize = 60;

/// The roots whose code only tests the game.
const TEST_ROOTS: [&str; 4] = [
    "file:tests.rs",
    "file:our_tests.rs",
    "file:solver_tests.rs",
    "file:end_to_end.rs",
];

/// The book's web, read as the build reads it (and checked as the build checks it).
fn web() -> Web {
    let outcome = litbook::tangle_crate(Path::new(env!("CARGO_MANIFEST_DIR")));
    assert!(outcome.problems.is_empty(), "{:?}", outcome.problems);
    outcome.web
}

/// The roots of the game's code: every root but the tests'.
fn game_roots(web: &Web) -> Vec<&str> {
    web.names()
        .iter()
        .map(String::as_str)
        .filter(|name| name.starts_with("file:") && !TEST_ROOTS.contains(name))
        .collect()
}

/// The chunks of the game's code: those its roots reach.
fn game_chunks(web: &Web) -> HashSet<&str> {
    web.uses().reached_from(game_roots(web))
}

#[test]
fn every_chunk_part_is_short_enough_to_hold_in_mind() {
    let web = web();
    let game = game_chunks(&web);
    let too_long: Vec<String> = web
        .parts
        .iter()
        .filter_map(|part| {
            let limit = if game.contains(part.name.as_str()) {
                LONGEST_PART
            } else {
                LONGEST_TEST_PART
            };
            (part.body.len() > limit).then(|| {
                format!(
                    "{}: ⟨{}⟩ has {} lines (at most {limit})",
                    part.header,
                    part.name,
                    part.body.len()
                )
            })
        })
        .collect();
    assert!(too_long.is_empty(), "{}", too_long.join("\n"));
}

#[test]
fn every_chunk_part_is_introduced_by_prose_of_its_own() {
    let web = web();
    let unintroduced: Vec<String> = web
        .parts
        .iter()
        .filter(|part| {
            let text = &web.chapters[part.chapter].text;
            let blocks: Vec<_> = fenced_blocks(text).into_iter().map(|b| b.range).collect();
            !has_prose_before(text, &blocks, part.block.start)
        })
        .map(|part| format!("{}: ⟨{}⟩", part.header, part.name))
        .collect();
    assert!(
        unintroduced.is_empty(),
        "these parts follow a code block, a heading or a figure with no sentence of their own:\n{}",
        unintroduced.join("\n")
    );
}

/// Whether a sentence stands between the code block (or heading) before `start` and `start`.
fn has_prose_before(text: &str, blocks: &[std::ops::Range<usize>], start: usize) -> bool {
    let from = blocks
        .iter()
        .map(|block| block.end)
        .filter(|&end| end <= start)
        .max()
        .unwrap_or(0);
    let between = format!("\n{}", &text[from..start]);
    let after_heading = match between.rsplit_once("\n#") {
        Some((_, heading_and_rest)) => heading_and_rest.split_once('\n').map_or("", |(_, r)| r),
        None => &between,
    };
    after_heading.lines().any(|line| {
        let line = line.trim();
        !line.is_empty() && !line.starts_with("{{#")
    })
}

/// The library's modules, as `src/lib.rs` declares them: (module's path below the crate, as
/// `solve::board`, the tangled file it includes).
fn library_modules() -> Vec<(String, String)> {
    let lib = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs"))
        .expect("src/lib.rs");
    let mut modules = Vec::new();
    let mut enclosing: Vec<(String, usize)> = Vec::new();
    let mut lines = lib.lines().peekable();
    while let Some(line) = lines.next() {
        let indent = line.len() - line.trim_start().len();
        if line.trim() == "}" {
            enclosing.retain(|&(_, depth)| depth < indent);
            continue;
        }
        let declaration = line.trim_start();
        let declaration = declaration.strip_prefix("pub").map_or(declaration, |rest| {
            rest.split_once(' ').map_or(rest, |(_, r)| r)
        });
        let Some(name) = declaration
            .strip_prefix("mod ")
            .and_then(|rest| rest.strip_suffix(" {"))
        else {
            continue;
        };
        let path: Vec<&str> = enclosing
            .iter()
            .map(|(outer, _)| outer.as_str())
            .chain([name])
            .collect();
        let path = path.join("::");
        match lines.peek().map(|next| next.trim_start()) {
            Some(include) if include.starts_with("include!(") => {
                let file = include
                    .split("\"/")
                    .nth(1)
                    .and_then(|rest| rest.split('"').next())
                    .expect("include!(concat!(env!(\"OUT_DIR\"), \"/FILE.rs\"))");
                modules.push((path, file.to_string()));
            }
            _ => enclosing.push((name.to_string(), indent)),
        }
    }
    assert_eq!(
        modules.len(),
        lib.matches("include!(").count(),
        "every module of src/lib.rs is read, whatever its visibility or nesting"
    );
    modules
}

/// The modules among `modules` that `text` names as `crate::MODULE` (the longest path that is one).
fn modules_named_in<'m>(text: &str, modules: &'m [(String, String)]) -> BTreeSet<&'m str> {
    text.split("crate::")
        .skip(1)
        .filter_map(|rest| {
            let path: String = rest
                .chars()
                .take_while(|&c| c.is_alphanumeric() || c == '_' || c == ':')
                .collect();
            modules
                .iter()
                .map(|(module, _)| module.as_str())
                .filter(|module| path == *module || path.starts_with(&format!("{module}::")))
                .max_by_key(|module| module.len())
        })
        .collect()
}

#[test]
fn no_module_imports_a_module_that_imports_it() {
    let files = litbook::tangle(&web()).expect("the book tangles");
    let modules = library_modules();
    assert!(modules.len() > 10, "src/lib.rs declares the book's modules");
    let uses: BTreeMap<&str, Vec<&str>> = modules
        .iter()
        .map(|(module, file)| {
            let tangled = files
                .iter()
                .find(|f| f.name == *file)
                .unwrap_or_else(|| panic!("no tangled file {file}"));
            let named = modules_named_in(&tangled.text, &modules);
            let used = named.into_iter().filter(|&m| m != module).collect();
            (module.as_str(), used)
        })
        .collect();
    assert!(uses["search"].contains(&"graph"), "the scan finds imports");
    assert!(
        uses["solve::deals"].contains(&"solve::solving"),
        "the scan finds the solver's modules importing each other"
    );
    let cycles: Vec<String> = uses
        .keys()
        .filter_map(|&start| cycle_through(&uses, start))
        .collect();
    assert!(
        cycles.is_empty(),
        "modules that import each other:\n{}",
        cycles.join("\n")
    );
}

/// A chain of imports that leads from `start` back to it, if there is one, as "a → b → a".
fn cycle_through(uses: &BTreeMap<&str, Vec<&str>>, start: &str) -> Option<String> {
    let mut paths = vec![vec![start]];
    let mut seen = BTreeSet::new();
    while let Some(path) = paths.pop() {
        for &next in uses.get(path[path.len() - 1]).into_iter().flatten() {
            if next == start {
                return Some([path.as_slice(), &[start]].concat().join(" → "));
            }
            if seen.insert(next) {
                paths.push([path.as_slice(), &[next]].concat());
            }
        }
    }
    None
}

/// The part titles of the book, in order, as `SUMMARY.md` must give them.
const PARTS: [&str; 5] = [
    "Part I — The game",
    "Part II — Playing it today",
    "Part III — Can the cat always be caught?",
    "Part IV — Making it fast",
    "Appendices",
];

/// What follows the parts in `SUMMARY.md`: the indexes, after a separator.
const AFTER_THE_PARTS: &str = "after the parts";

/// Each chapter `SUMMARY.md` lists, with the title of the part it is in: "" before the first part,
/// [`AFTER_THE_PARTS`] after the separator that closes the last.
fn chapters_by_part() -> Vec<(String, String)> {
    let summary = fs::read_to_string(book_src().join("SUMMARY.md")).expect("SUMMARY.md");
    let mut part = String::new();
    let mut listed = Vec::new();
    for line in summary
        .lines()
        .skip_while(|line| !line.starts_with("# "))
        .skip(1)
    {
        if let Some(title) = line.strip_prefix("# ") {
            part = title.trim().to_string();
        } else if line.trim() == "---" {
            part = AFTER_THE_PARTS.to_string();
        } else if let Some(path) = line
            .split("](")
            .nth(1)
            .and_then(|rest| rest.split(')').next())
        {
            listed.push((path.to_string(), part.clone()));
        }
    }
    listed
}

/// Whether a chapter belongs to the argument of the book: Parts I to III.
fn in_the_argument(part: &str) -> bool {
    PARTS[..3].contains(&part)
}

/// The chapters of Parts I to III, as the tangler names them (`book/src/FILE.md`).
fn argument_chapters() -> BTreeSet<String> {
    let chapters: BTreeSet<String> = chapters_by_part()
        .into_iter()
        .filter(|(_, part)| in_the_argument(part))
        .map(|(path, _)| format!("book/src/{path}"))
        .collect();
    for chapter in [
        "book/src/world.md",
        "book/src/undo.md",
        "book/src/solver.md",
    ] {
        assert!(
            chapters.contains(chapter),
            "{chapter} is in Parts I to III of SUMMARY.md"
        );
    }
    chapters
}

#[test]
fn the_book_is_in_four_parts_and_appendices() {
    let listed = chapters_by_part();
    let mut parts: Vec<&str> = listed.iter().map(|(_, part)| part.as_str()).collect();
    parts.dedup();
    assert_eq!(
        parts,
        [&[""], &PARTS[..], &[AFTER_THE_PARTS]].concat(),
        "SUMMARY.md: the landing page, then the four parts and the appendices, then the indexes"
    );
}

/// The most parts a chunk other than a root may have: more is a list, not an idea. A chunk that each
/// chapter continues once, with what that chapter adds (the fields of the game), is one idea spread
/// over the book, and may have more.
const MOST_PARTS: usize = 6;

#[test]
fn every_chunk_name_is_one_idea_of_a_few_parts() {
    let web = web();
    let mut parts: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut chapters: BTreeMap<&str, BTreeSet<usize>> = BTreeMap::new();
    for part in &web.parts {
        parts
            .entry(part.name.as_str())
            .or_default()
            .push(part.header.to_string());
        chapters
            .entry(part.name.as_str())
            .or_default()
            .insert(part.chapter);
    }
    let once_a_chapter = |name: &str, places: &[String]| chapters[name].len() == places.len();
    let lists: Vec<String> = parts
        .iter()
        .filter(|(name, places)| {
            !name.starts_with("file:")
                && places.len() > MOST_PARTS
                && !once_a_chapter(name, places)
        })
        .map(|(name, places)| {
            format!(
                "⟨{name}⟩ has {} parts (at most {MOST_PARTS}): {}; give its parts names that say what each does",
                places.len(),
                places.join(", ")
            )
        })
        .collect();
    assert!(lists.is_empty(), "{}", lists.join("\n"));
}

/// The most records of runs (timings, sizes, dates, run counts) the prose of Parts I to III may hold:
/// results live in Part IV and the appendices, in tables with their commands.
const MOST_RECORDS_IN_THE_ARGUMENT: usize = 10;

/// Whether a line of prose records a run: a time or a size with its unit, a date, or a count of runs.
fn records_a_run(line: &str) -> bool {
    const UNITS: [&str; 16] = [
        "ns", "µs", "ms", "s", "second", "seconds", "minute", "minutes", "hour", "hours", "KB",
        "MB", "GB", "GiB", "MiB", "min",
    ];
    let words: Vec<&str> = line
        .split(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | ',' | ';' | ':'))
        .filter(|w| !w.is_empty())
        .collect();
    let number = |w: &str| w.chars().next().is_some_and(|c| c.is_ascii_digit());
    let with_unit = |w: &str| {
        UNITS.iter().any(|unit| {
            w.strip_suffix(unit)
                .is_some_and(|n| number(n) && n.chars().all(|c| c.is_ascii_digit() || c == '.'))
        })
    };
    let after_number = |w: &str| {
        let w = w.trim_end_matches(['.', ',']);
        UNITS.contains(&w) || MONTHS.contains(&w) || w == "runs"
    };
    let counted = |w: &str| number(w) || ["two", "three", "four", "five", "ten"].contains(&w);
    let date = |w: &str| {
        let parts: Vec<&str> = w.trim_end_matches(['.', ',']).split('-').collect();
        parts.len() == 3
            && [4, 2, 2] == [parts[0].len(), parts[1].len(), parts[2].len()]
            && parts.iter().all(|p| p.chars().all(|c| c.is_ascii_digit()))
    };
    words
        .iter()
        .any(|w| with_unit(w.trim_end_matches(['.', ','])) || date(w))
        || words
            .windows(2)
            .any(|pair| counted(pair[0]) && after_number(pair[1]))
}

#[test]
fn the_argument_carries_ideas_not_records_of_runs() {
    let mut records = Vec::new();
    for path in argument_chapters() {
        let text = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(&path))
            .expect("a listed chapter");
        let code: Vec<_> = fenced_blocks(&text).into_iter().map(|b| b.range).collect();
        let mut offset = 0;
        for (number, line) in text.split_inclusive('\n').enumerate() {
            let in_code = code.iter().any(|r| r.contains(&offset));
            if !in_code && records_a_run(line) {
                records.push(format!("{path}:{}: {}", number + 1, line.trim()));
            }
            offset += line.len();
        }
    }
    assert!(
        records.len() <= MOST_RECORDS_IN_THE_ARGUMENT,
        "Parts I to III hold {} records of runs (at most {MOST_RECORDS_IN_THE_ARGUMENT}); move them to a table in Part IV or an appendix:\n{}",
        records.len(),
        records.join("\n")
    );
}

#[test]
fn records_of_runs_are_recognised() {
    for line in [
        "took 130 seconds rather than 111",
        "hover answers in 2.3 ms (median of 20)",
        "(50 min 40 s wall, 4.5 GB)",
        "measured on 24 November",
        "two runs of each",
        "committed on 2026-11-25, when it kept 4,096",
        "up to 5.8GB",
    ] {
        assert!(records_a_run(line), "{line}");
    }
    for line in [
        "the cat steps 3 cells",
        "an 11×11 board with 6 cells blocked",
        "seeds 1 to 10,000",
    ] {
        assert!(!records_a_run(line), "{line}");
    }
}

/// The longest median a non-test part of Parts I to III may have, in lines: the original's parts
/// have 7, pbrt's 5 to 20.
const LONGEST_MEDIAN_PART: usize = 15;
/// The largest share of Parts I to III's chunk lines that may be test code, in percent: the
/// original's tests stay where the original has them, ours are in the appendices.
const LARGEST_TEST_SHARE: usize = 25;

/// The chunk parts of Parts I to III, each as (lines, whether only the tests use it).
fn parts_of_the_argument(web: &Web) -> Vec<(usize, bool)> {
    let argument = argument_chapters();
    let game = game_chunks(web);
    web.parts
        .iter()
        .filter(|part| argument.contains(&web.chapters[part.chapter].display))
        .map(|part| (part.body.len(), !game.contains(part.name.as_str())))
        .collect()
}

#[test]
fn parts_one_to_three_are_short_chunks_mostly_of_the_game() {
    let web = web();
    let parts = parts_of_the_argument(&web);
    let mut game: Vec<usize> = parts
        .iter()
        .filter(|(_, test)| !test)
        .map(|(lines, _)| *lines)
        .collect();
    game.sort_unstable();
    let median = game[game.len() / 2];
    assert!(
        median <= LONGEST_MEDIAN_PART,
        "the median non-test part of Parts I to III has {median} lines (at most {LONGEST_MEDIAN_PART}): split long parts into named steps"
    );
    let all: usize = parts.iter().map(|(lines, _)| lines).sum();
    let tests: usize = parts
        .iter()
        .filter(|(_, test)| *test)
        .map(|(lines, _)| lines)
        .sum();
    assert!(
        tests * 100 <= all * LARGEST_TEST_SHARE,
        "{tests} of Parts I to III's {all} chunk lines are tests (at most {LARGEST_TEST_SHARE} %): our own tests belong in the appendices"
    );
}

/// The most of the book's own types, functions and constants that Parts I to III's code may use
/// before the chapter that defines them; each is introduced by a sentence that says where it comes
/// from.
const MOST_NAMES_BEFORE_THEIR_CHAPTER: usize = 5;

/// The appendices that hold the machinery Part I uses as the original uses Racket's libraries: the
/// picture library (2htdp/image) and the window (big-bang). Part I says in a paragraph what each
/// gives, and uses their names as it uses the standard library's, before the appendix defines them.
const LIBRARY_APPENDICES: [&str; 3] = [
    "book/src/images.md",
    "book/src/placing.md",
    "book/src/window.md",
];

/// The root of the benchmarks, which use the program and are no part of it.
const BENCHMARK_ROOT: &str = "file:speed.rs";

/// The part of `web` a place in a chapter falls in, if any.
fn part_at(web: &Web, place: &litbook::Place) -> Option<usize> {
    web.parts.iter().position(|part| {
        part.body.first().is_some_and(|first| {
            let last = &part.body[part.body.len() - 1];
            first.place.file == place.file
                && (first.place.line..=last.place.line).contains(&place.line)
        })
    })
}

/// What the book's code names, as the check of names before their chapter needs it.
struct BookNames {
    /// The book's own top-level items (functions, types, constants) that the program's parts
    /// define, each with the place in book order of the chapter that defines it.
    items: BTreeMap<String, usize>,
    /// The names each chapter binds locally somewhere, as (chapter, name): there a bare word of that
    /// name is taken for the local.
    bound: HashSet<(usize, String)>,
    /// Every item, variant or associated item, as (chapter file, line, name) where its name is
    /// written: a definition, not a use.
    declared: HashSet<(String, usize, String)>,
}

/// What the book's code names; `program` is the chunks of the program itself.
fn book_names(web: &Web, program: &HashSet<&str>) -> BookNames {
    let files = litbook::tangle(web).expect("the book tangles");
    let names = litbook::identifiers::names(&files);
    let mut items = BTreeMap::new();
    let mut declared = HashSet::new();
    for definition in names.definitions {
        let place = &definition.place;
        declared.insert((place.file.clone(), place.line, definition.name.clone()));
        let Some(part) = part_at(web, place) else {
            continue;
        };
        if definition.owner.is_none() && program.contains(web.parts[part].name.as_str()) {
            let chapter = web.parts[part].chapter;
            items
                .entry(definition.name)
                .and_modify(|first: &mut usize| *first = (*first).min(chapter))
                .or_insert(chapter);
        }
    }
    let bound = names
        .bindings
        .into_iter()
        .filter_map(|(name, place)| Some((web.parts[part_at(web, &place)?].chapter, name)))
        .collect();
    BookNames {
        items,
        bound,
        declared,
    }
}

/// Whether `name` in `line` names something declared there rather than an item: a field or a
/// parameter (`cat: Posn`), or an associated type bound (`IntoIterator<Item = Node>`).
fn declared_here(line: &str, name: &str) -> bool {
    line.match_indices(name).any(|(at, _)| {
        let after = &line[at + name.len()..];
        let before = line[..at].trim_end();
        (after.starts_with(':') && !after.starts_with("::"))
            || (after.trim_start().starts_with('=')
                && !after.trim_start().starts_with("==")
                && (before.ends_with('<') || before.ends_with(',')))
    })
}

#[test]
fn parts_one_to_three_use_few_names_before_their_chapter() {
    let web = web();
    let argument = argument_chapters();
    let game = game_chunks(&web);
    let program_roots: Vec<&str> = game_roots(&web)
        .into_iter()
        .filter(|&root| root != BENCHMARK_ROOT)
        .collect();
    let uses = web.uses();
    let program = uses.reached_from(program_roots.iter().copied());
    let names = book_names(&web, &program);
    let mut early: BTreeMap<&str, String> = BTreeMap::new();
    for part in &web.parts {
        let chapter = &web.chapters[part.chapter];
        if !argument.contains(&chapter.display) || !game.contains(part.name.as_str()) {
            continue;
        }
        for line in part.body.iter().filter(|line| line.reference.is_none()) {
            for (name, qualified) in litbook::identifiers::identifiers(&line.text) {
                let Some((defined_name, &defined)) = names.items.get_key_value(name) else {
                    continue;
                };
                let local = names.bound.contains(&(part.chapter, name.to_string()));
                let declared = names.declared.contains(&(
                    line.place.file.clone(),
                    line.place.line,
                    name.to_string(),
                )) || declared_here(&line.text, name);
                let from_a_library =
                    LIBRARY_APPENDICES.contains(&web.chapters[defined].display.as_str());
                if !qualified && !local && !declared && !from_a_library && defined > part.chapter {
                    early.entry(defined_name.as_str()).or_insert_with(|| {
                        format!(
                            "{}: `{name}`, defined in {}",
                            line.place, web.chapters[defined].display
                        )
                    });
                }
            }
        }
    }
    assert_eq!(
        web.chapters[names.items["build_bfs_table"]].display, "book/src/search.md",
        "the scan finds where the book's names are defined"
    );
    assert!(
        early.contains_key("Cat"),
        "the scan finds Cat, which Part I names before Part III defines it"
    );
    assert!(
        early.len() <= MOST_NAMES_BEFORE_THEIR_CHAPTER,
        "Parts I to III use {} of the book's names before the chapter that defines them (at most {MOST_NAMES_BEFORE_THEIR_CHAPTER}); move the use to a continuation in that chapter, or the definition earlier:\n{}",
        early.len(),
        early.into_values().collect::<Vec<_>>().join("\n")
    );
}

/// The most lines a tangled file of the program may have: a module longer than that is more than one
/// idea, and the book gives each idea a module of its own.
const LONGEST_FILE: usize = 1000;

#[test]
fn every_module_of_the_program_is_one_idea_of_a_readable_length() {
    let files = litbook::tangle(&web()).expect("the book tangles");
    let long: Vec<String> = files
        .iter()
        .filter(|file| !TEST_ROOTS.contains(&format!("file:{}", file.name).as_str()))
        .filter(|file| file.text.lines().count() > LONGEST_FILE)
        .map(|file| format!("{}: {} lines", file.name, file.text.lines().count()))
        .collect();
    assert!(
        files.len() > 10,
        "the book tangles into the program's files"
    );
    assert!(
        long.is_empty(),
        "tangled files longer than {LONGEST_FILE} lines; give their ideas modules of their own:\n{}",
        long.join("\n")
    );
}

/// The problems Node.js finds in the syntax of each of a book's scripts, each at its Markdown place
/// through the script's line map, as the tangler reports Rust's: `PLACE: MESSAGE`.
fn script_syntax_problems(scripts: &[litbook::TangledFile]) -> Vec<String> {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut problems = Vec::new();
    for script in scripts {
        let path = dir.path().join(&script.name);
        fs::write(&path, &script.text).unwrap();
        let output = Command::new("node")
            .arg("--check")
            .arg(&path)
            .output()
            .expect("node runs (bash .ci/run installs Node.js)");
        if output.status.success() {
            continue;
        }
        let said = String::from_utf8_lossy(&output.stderr).into_owned();
        let lines: Vec<&str> = said.lines().collect();
        let line = lines
            .first()
            .and_then(|first| first.rsplit(':').next()?.parse::<usize>().ok());
        let col = lines
            .iter()
            .find_map(|l| l.trim_end().ends_with('^').then(|| l.find('^')))
            .flatten()
            .map_or(1, |at| at + 1);
        let message = lines
            .iter()
            .find(|l| l.contains("Error: "))
            .copied()
            .unwrap_or(&said);
        let place = line.and_then(|line| script.map.place(line, col));
        problems.push(match place {
            Some(place) => format!("{place}: {}", message.trim()),
            None => format!("{}: {said}", script.name),
        });
    }
    problems
}

#[test]
#[ignore = "needs Node.js: bash .ci/run installs it"]
fn the_books_scripts_are_javascript_that_parses() {
    let outcome = litbook::tangle_crate(Path::new(env!("CARGO_MANIFEST_DIR")));
    assert!(outcome.problems.is_empty(), "{:?}", outcome.problems);
    assert!(
        !outcome.scripts.is_empty(),
        "the book has its page's script"
    );
    let problems = script_syntax_problems(&outcome.scripts);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
#[ignore = "needs Node.js: bash .ci/run installs it"]
fn a_script_that_does_not_parse_is_reported_at_its_markdown_line() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    fs::write(dir.path().join("SUMMARY.md"), "- [Page](page.md)\n").unwrap();
    let chapter = "# Page\n\n```js\n// <<file:page.js>>=\nconst a = 1;\n// <<the broken part>>\n```\n\nIt breaks here:\n\n```js\n// <<the broken part>>=\nconst b = (a;\n```\n";
    fs::write(dir.path().join("page.md"), chapter).unwrap();
    let outcome = litbook::tangle_book(dir.path(), "book/src");
    assert!(outcome.problems.is_empty(), "{:?}", outcome.problems);
    let problems = script_syntax_problems(&outcome.scripts);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].starts_with("book/src/page.md:13:") && problems[0].contains("SyntaxError"),
        "{}",
        problems[0]
    );
}

/// Where `.ci/setup` installs ESLint, with the configuration of `tests/script-lint`.
fn script_lint() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("target/script-lint")
}

/// The problems ESLint's recommended rules find in each of a book's scripts, each at its Markdown
/// place through the script's line map: `PLACE: MESSAGE (RULE)`.
fn script_lint_problems(scripts: &[litbook::TangledFile]) -> Vec<String> {
    let lint = script_lint();
    let eslint = lint.join("node_modules/.bin/eslint");
    assert!(
        eslint.is_file(),
        "{} is missing: `source .ci/setup && install_script_lint` installs ESLint",
        eslint.display()
    );
    let dir = tempfile::tempdir_in(&lint).expect("a temporary directory beside ESLint");
    let mut problems = Vec::new();
    for script in scripts {
        let path = dir.path().join(&script.name);
        fs::write(&path, &script.text).unwrap();
        let output = Command::new(&eslint)
            .args(["--config", "eslint.config.mjs", "--format", "json"])
            .arg(&path)
            .current_dir(&lint)
            .output()
            .expect("ESLint runs");
        let report: serde_json::Value =
            serde_json::from_slice(&output.stdout).unwrap_or_else(|_| {
                let said = String::from_utf8_lossy(&output.stderr);
                panic!("ESLint gave no report on {}: {said}", script.name)
            });
        for found in report[0]["messages"].as_array().into_iter().flatten() {
            let number = |key: &str| found[key].as_u64().unwrap_or(1) as usize;
            let rule = found["ruleId"].as_str().unwrap_or("syntax");
            let message = format!("{} ({rule})", found["message"].as_str().unwrap_or(""));
            problems.push(match script.map.place(number("line"), number("column")) {
                Some(place) => format!("{place}: {message}"),
                None => format!("{}: {message}", script.name),
            });
        }
    }
    problems
}

#[test]
#[ignore = "needs ESLint: bash .ci/run installs it"]
fn the_books_scripts_keep_eslint_s_recommended_rules() {
    let outcome = litbook::tangle_crate(Path::new(env!("CARGO_MANIFEST_DIR")));
    assert!(outcome.problems.is_empty(), "{:?}", outcome.problems);
    assert!(
        !outcome.scripts.is_empty(),
        "the book has its page's script"
    );
    let problems = script_lint_problems(&outcome.scripts);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
#[ignore = "needs ESLint: bash .ci/run installs it"]
fn a_script_that_breaks_a_rule_is_reported_at_its_markdown_line() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    fs::write(dir.path().join("SUMMARY.md"), "- [Page](page.md)\n").unwrap();
    let chapter = "# Page\n\n```js\n// <<file:page.js>>=\n\"use strict\";\n// <<the careless part>>\n```\n\nIt uses a name never made:\n\n```js\n// <<the careless part>>=\ndocument.title = titel;\n```\n";
    fs::write(dir.path().join("page.md"), chapter).unwrap();
    let outcome = litbook::tangle_book(dir.path(), "book/src");
    assert!(outcome.problems.is_empty(), "{:?}", outcome.problems);
    let problems = script_lint_problems(&outcome.scripts);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].starts_with("book/src/page.md:13:18: ")
            && problems[0].contains("'titel' is not defined")
            && problems[0].contains("no-undef"),
        "{}",
        problems[0]
    );
}

#[test]
fn each_chapter_is_listed_under_its_own_title() {
    let summary = fs::read_to_string(book_src().join("SUMMARY.md")).expect("SUMMARY.md");
    let mut checked = 0;
    for line in summary.lines() {
        let Some((title, rest)) = line
            .split_once('[')
            .and_then(|(_, rest)| rest.split_once("]("))
        else {
            continue;
        };
        let path = rest.split(')').next().expect("a link's target");
        let chapter = fs::read_to_string(book_src().join(path)).expect("a listed chapter");
        let heading = chapter
            .lines()
            .find_map(|line| line.strip_prefix("# "))
            .unwrap_or_else(|| panic!("{path} has no `#` title"));
        assert_eq!(
            heading.trim(),
            title,
            "SUMMARY.md lists {path} as \"{title}\"; its page is titled \"{heading}\""
        );
        checked += 1;
    }
    assert!(checked > 40, "SUMMARY.md's chapters are read");
}

/// Words that belong to a changelog, not to a book: where something was before, what the prose says
/// now, and the day it was done.
const CHANGELOG_WORDS: [&str; 5] = [
    "moved from",
    "moved to",
    "now says",
    "now say",
    "prose said",
];

/// The months, for dates such as "25 November" or "November 25": a record of a run in the argument,
/// and a changelog's mark anywhere.
const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

#[test]
fn the_book_reads_as_a_book_not_a_changelog() {
    for (path, text) in chapters() {
        for (number, line) in text.lines().enumerate() {
            let place = format!("book/src/{path}:{}", number + 1);
            let lower = line.to_lowercase();
            for words in CHANGELOG_WORDS {
                assert!(
                    !lower.contains(words),
                    "{place}: \"{words}\" tells the book's history; say what is: {line}"
                );
            }
            let words: Vec<&str> = line
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .collect();
            for pair in words.windows(2) {
                let day = |w: &str| w.parse::<u32>().is_ok_and(|d| (1..=31).contains(&d));
                let dated = (day(pair[0]) && MONTHS.contains(&pair[1]))
                    || (MONTHS.contains(&pair[0]) && day(pair[1]));
                assert!(
                    !dated,
                    "{place}: a date; a result's record says how to reproduce it, not when: {line}"
                );
            }
        }
    }
}

#[test]
fn doc_comments_in_the_code_hold_no_markdown_links() {
    let web = web();
    for part in &web.parts {
        for line in &part.body {
            let comment = line.text.trim_start();
            let is_doc = comment.starts_with("///") || comment.starts_with("//!");
            assert!(
                !(is_doc && comment.contains("](")),
                "{}: a Markdown link in a doc comment shows as raw text in the woven code and \
                 leads nowhere in rustdoc; name the chapter in words: {comment}",
                line.place
            );
        }
    }
}

/// The widest line of code the book's pages show without scrolling: `max_width` of the book's
/// `rustfmt.toml`, which `litbook fmt` formats the chunks to.
fn page_width() -> usize {
    let config = fs::read_to_string(book_src().join("../rustfmt.toml")).expect("book/rustfmt.toml");
    config
        .lines()
        .find_map(|line| line.strip_prefix("max_width = "))
        .and_then(|width| width.trim().parse().ok())
        .expect("book/rustfmt.toml sets max_width")
}

/// What the woven page adds after a reference to a chunk of another chapter: the chapter's title, as
/// `chunks.css` shows it, ` (TITLE)`; nothing for a chunk of the same chapter.
fn shown_after_a_reference(
    web: &Web,
    titles: &HashMap<String, String>,
    path: &str,
    line: &str,
) -> String {
    let Some(name) = line
        .trim()
        .strip_prefix("// <<")
        .and_then(|rest| rest.strip_suffix(">>"))
    else {
        return String::new();
    };
    let defined = web.parts.iter().find(|part| part.name == name).map(|part| {
        web.chapters[part.chapter]
            .display
            .trim_start_matches("book/src/")
    });
    match defined {
        Some(chapter) if chapter != path => format!(" ({})", titles[chapter]),
        _ => String::new(),
    }
}

#[test]
fn no_line_of_code_is_wider_than_the_page_shows() {
    let width = page_width();
    let web = web();
    let chapters = chapters();
    let titles: HashMap<String, String> = chapters
        .iter()
        .map(|(path, text)| {
            let title = text.lines().find_map(|line| line.strip_prefix("# "));
            (path.clone(), title.unwrap_or_default().trim().to_string())
        })
        .collect();
    let mut wide = Vec::new();
    for (path, text) in &chapters {
        for block in fenced_blocks(text) {
            for line in &block.lines {
                let written = line.text.trim_end();
                let shown = format!(
                    "{written}{}",
                    shown_after_a_reference(&web, &titles, path, written)
                );
                if shown.chars().count() > width {
                    let number = text[..line.offset].lines().count() + 1;
                    wide.push(format!("book/src/{path}:{number}: {shown}"));
                }
            }
        }
    }
    assert!(
        wide.is_empty(),
        "lines of code wider than the {width} columns a page shows at 1280 px (book/rustfmt.toml):\n{}",
        wide.join("\n")
    );
}
