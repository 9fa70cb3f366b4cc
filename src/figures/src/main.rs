//! `chat-noir-figures`: the book's figures, drawn by the game's own drawing code when the book is built.
//!
//! A chapter asks for one with a line `{{#figure NAME ARGS…}}`. The book's preprocessor builds this
//! program and runs it with every figure the book asks for, as a JSON array of directives (each an
//! array of words: `["cats-path", "7", "2", "2"]`) on standard input; it answers with a JSON array
//! of the same length, each entry `{"html": "<figure>…"}` (the picture as inline SVG) or
//! `{"error": "why not"}`. Labels (coordinates, distances) are SVG text laid over the picture at each
//! cell's centre.

use std::io::{self, Read};
use std::process::ExitCode;

use chat_noir::bfs::{Distance, Node, lookup_in_table};
use chat_noir::cat::{CatMode, cat};
use chat_noir::drawing::{cell_center_x, cell_center_y, render_board, render_world};
use chat_noir::image::{Image, image_width, to_svg, underlay_xy};
use chat_noir::play::Game;
use chat_noir::search::build_bfs_table;
use chat_noir::start::make_initial_world;
use chat_noir::world::{Posn, State, World, empty_board, game_rng};

fn main() -> ExitCode {
    let mut input = String::new();
    if let Err(error) = io::stdin().read_to_string(&mut input) {
        eprintln!("chat-noir-figures: cannot read the figures asked for: {error}");
        return ExitCode::FAILURE;
    }
    let requests: Vec<Vec<String>> = match serde_json::from_str(&input) {
        Ok(requests) => requests,
        Err(error) => {
            eprintln!(
                "chat-noir-figures: expected a JSON array of figure directives (arrays of words): {error}"
            );
            return ExitCode::FAILURE;
        }
    };
    let answers: Vec<serde_json::Value> = requests
        .iter()
        .map(|words| {
            let words: Vec<&str> = words.iter().map(String::as_str).collect();
            match figure(&words) {
                Ok(html) => serde_json::json!({ "html": html }),
                Err(error) => serde_json::json!({ "error": error }),
            }
        })
        .collect();
    println!("{}", serde_json::Value::Array(answers));
    ExitCode::SUCCESS
}

const USAGE: &str = "known figures: empty-board N, board-coordinates N, cats-path N X Y, cat-faces, \
                     distance-map N SEED, world N SEED, keys N SEED, coach N SEED";

/// The figure that `words` (the directive after `{{#figure`) ask for.
fn figure(words: &[&str]) -> Result<String, String> {
    let (name, args) = words
        .split_first()
        .ok_or(format!("no figure named; {USAGE}"))?;
    let numbers: Vec<i32> = args
        .iter()
        .map(|a| {
            a.parse()
                .map_err(|_| format!("`{a}` is not a whole number; {USAGE}"))
        })
        .collect::<Result<_, _>>()?;
    match (*name, numbers.as_slice()) {
        ("empty-board", &[n]) => board(n, false),
        ("board-coordinates", &[n]) => board(n, true),
        ("cats-path", &[n, x, y]) => cats_path(n, Posn::new(x, y)),
        ("cat-faces", &[]) => Ok(cat_faces()),
        ("distance-map", &[n, seed]) => distance_map(n, seed),
        ("world", &[n, seed]) => world(n, seed),
        ("keys", &[n, seed]) => keys(n, seed),
        ("coach", &[n, seed]) => coach(n, seed),
        _ => Err(format!("no figure `{}`; {USAGE}", words.join(" "))),
    }
}

fn size(n: i32) -> Result<i32, String> {
    chat_noir::cli::board_size(&n.to_string()).map_err(|e| format!("board size: {e}"))
}

fn board(n: i32, coordinates: bool) -> Result<String, String> {
    let n = size(n)?;
    let cells = empty_board(n);
    let svg = to_svg(&render_board(&cells, n, |_| false, None));
    let (svg, caption) = if coordinates {
        let labels = cells
            .iter()
            .map(|c| (c.p, format!("{},{}", c.p.x, c.p.y), false));
        (
            with_labels(&svg, labels),
            format!(
                "The {n}×{n} board with the position (x, y) of each cell; odd rows are shifted half a cell to the right."
            ),
        )
    } else {
        (
            svg,
            format!("The empty {n}×{n} board, drawn by <code>render_board</code>."),
        )
    };
    Ok(html(&svg, &caption))
}

fn cats_path(n: i32, cat: Posn) -> Result<String, String> {
    let n = size(n)?;
    let world = World {
        board: empty_board(n),
        cat,
        state: State::Playing,
        size: n,
        mouse_posn: None,
        help: true,
    };
    let caption = format!(
        "The cat at ({}, {}) of an empty {n}×{n} board, with help on: the cells with white centres are on its shortest paths to the edge.",
        cat.x, cat.y
    );
    Ok(html(&to_svg(&render_world(&world)), &caption))
}

fn cat_faces() -> String {
    let faces = [CatMode::Thinking, CatMode::Happy, CatMode::Mad].map(cat);
    let step = image_width(&faces[0]) + 16.0;
    let mut row: Option<Image> = None;
    for (i, face) in faces.into_iter().enumerate() {
        row = Some(match row {
            None => face,
            Some(left) => underlay_xy(left, step * i as f64, 0.0, face),
        });
    }
    let row = row.expect("three faces");
    let svg = to_svg(&row).replacen(
        "<svg ",
        &format!("<svg style=\"width: {}px\" ", image_width(&row) * 3.0),
        1,
    );
    html(
        &svg,
        "The cat thinking (while the game is on), happy (when it has escaped) and mad (when it is shut in), drawn by <code>cat</code>, three times their size.",
    )
}

fn distance_map(n: i32, seed: i32) -> Result<String, String> {
    let n = size(n)?;
    let world = make_initial_world(n, &mut game_rng(seed as u64));
    let table = build_bfs_table(&world, Node::Boundary);
    let labels = world.board.iter().map(|c| {
        let label = match lookup_in_table(&table, c.p) {
            _ if c.blocked => String::new(),
            Distance::Steps(d) => d.to_string(),
            Distance::Infinite => "∞".to_string(),
        };
        (c.p, label, c.blocked)
    });
    let svg = with_labels(
        &to_svg(&render_board(&world.board, n, |_| false, None)),
        labels,
    );
    let caption = format!(
        "The distance of every cell to the boundary, on the first board of seed {seed} ({n}×{n}). Blocked cells have none."
    );
    Ok(html(&svg, &caption))
}

fn world(n: i32, seed: i32) -> Result<String, String> {
    let n = size(n)?;
    let world = make_initial_world(n, &mut game_rng(seed as u64));
    let caption =
        format!("The world a game of seed {seed} starts with, drawn by <code>render_world</code>.");
    Ok(html(&to_svg(&render_world(&world)), &caption))
}

fn keys(n: i32, seed: i32) -> Result<String, String> {
    let game = Game::new(size(n)?, seed as u64).toggle_keys();
    let caption = format!(
        "The keys shown over the first world of seed {seed} ({n}×{n}), as <code>?</code> or F1 shows them, drawn by <code>Game::picture</code>."
    );
    Ok(html(&to_svg(&game.picture(1.0)), &caption))
}

/// The first world of `seed` with the coach on, once it has answered, and what the title then says.
fn coach(n: i32, seed: i32) -> Result<String, String> {
    let mut game = Game::new(size(n)?, seed as u64).toggle_coach();
    while game.status().contains("coach: thinking") {
        std::thread::sleep(std::time::Duration::from_millis(10));
        game.listen_to_coach();
    }
    let caption = format!(
        "The coach over the first world of seed {seed} ({n}×{n}), drawn by <code>Game::picture</code>; the window's title reads “{}”.",
        escape(&game.status())
    );
    Ok(html(&to_svg(&game.picture(1.0)), &caption))
}

/// The SVG with a text label centred on each given cell (white on a blocked cell).
fn with_labels(svg: &str, labels: impl Iterator<Item = (Posn, String, bool)>) -> String {
    let mut text = String::new();
    for (p, label, on_black) in labels {
        let fill = if on_black { "#ffffff" } else { "#000000" };
        text.push_str(&format!(
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" dominant-baseline=\"central\" font-family=\"sans-serif\" font-size=\"11\" fill=\"{fill}\">{}</text>\n",
            cell_center_x(p),
            cell_center_y(p),
            escape(&label)
        ));
    }
    svg.replace("</svg>", &format!("{text}</svg>"))
}

/// Text made safe inside SVG and HTML. (The weaver has the same function; this program keeps its
/// own so that it does not depend on the tangler, whose build would then differ from the weaver's and
/// be compiled twice in the book's first build.)
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn html(svg: &str, caption: &str) -> String {
    format!(
        "<figure class=\"chunk-figure\">\n{}<figcaption>{caption}</figcaption>\n</figure>",
        svg.trim_end()
    )
}
