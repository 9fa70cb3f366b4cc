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
use chat_noir::drawing::{
    CIRCLE_RADIUS, cell_center_x, cell_center_y, crop_whiskers, render_board, render_world,
};
use chat_noir::graph::{adjacent, in_bounds};
use chat_noir::image::{
    Color, Image, Mode, TRANSPARENT, add_line, circle, ellipse, image_height, image_width, overlay,
    rectangle, text, underlay_xy,
};
use chat_noir::input::{MouseEvent, clack, update_world_posn};
use chat_noir::play::{Game, counted};
use chat_noir::search::build_bfs_table;
use chat_noir::solve::board::{Board, Cat, Position, Verdict, bits};
use chat_noir::solve::deals::{
    Difficulty, FIRST_MOVE_BUDGET, certified_deal_in_turn, deal_budget, first_moves_keep,
};
use chat_noir::solve::escape::{Tried, TurnTraced, player_turn_traced};
use chat_noir::solve::fastest::{FastestBudget, fastest_win, relied_on_after_a_pass};
use chat_noir::solve::proof::{TreeNode, search_tree};
use chat_noir::solve::solving::{PERFECT_CAT_BUDGET, solve, solve_position};
use chat_noir::start::{BOARD_SIZE, make_initial_world};
use chat_noir::svg::to_svg;
use chat_noir::world::{Posn, State, World, block_cell, empty_board, game_rng};

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
                Ok(html) => serde_json::json!({ "html": clip_paths_of_their_own(&html, &words) }),
                Err(error) => serde_json::json!({ "error": error }),
            }
        })
        .collect();
    println!("{}", serde_json::Value::Array(answers));
    ExitCode::SUCCESS
}

/// `html` with the clip paths of each of its pictures named apart from every other picture's.
/// `to_svg` numbers a picture's clip paths from `c0`, and a page holds many pictures, where an
/// `id` names one element of the whole page: without this, a picture would be clipped by another's
/// `c0`. Each is named after the figure's `words` and the picture's place in the figure.
fn clip_paths_of_their_own(html: &str, words: &[&str]) -> String {
    let figure: String = words
        .join("-")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let mut pictures = html.split("<svg");
    let mut named = pictures.next().unwrap_or_default().to_string();
    for (n, picture) in pictures.enumerate() {
        let prefix = format!("{figure}-{n}-");
        named.push_str("<svg");
        named.push_str(
            &picture
                .replace("<clipPath id=\"c", &format!("<clipPath id=\"{prefix}c"))
                .replace("clip-path=\"url(#c", &format!("clip-path=\"url(#{prefix}c")),
        );
    }
    named
}

const USAGE: &str = "known figures: empty-board N, board-coordinates N, neighbours N X Y [X Y]…, \
                     cats-path N X Y, cat-faces, cell-places, \
                     distance-map N SEED, world N SEED, played N SEED, game N SEED, keys N SEED, coach N SEED, \
                     two-distance N SEED, escape-steps N, pen N CAT_X CAT_Y [BLOCKED_X BLOCKED_Y]…, \
                     escape-after-blocks N CAT_X CAT_Y [BLOCKED_X BLOCKED_Y]…, \
                     fastest-after-blocks N CAT_X CAT_Y [BLOCKED_X BLOCKED_Y]…, \
                     pass-relies-on N MOVES CAT_X CAT_Y [BLOCKED_X BLOCKED_Y]…, \
                     escape-turn N STEPS STAGE CAT_X CAT_Y [BLOCKED_X BLOCKED_Y]… \
                     (stage 0 the pass, 1 the cuts, 2… each move tried), \
                     wall-off N SEED MOVES, \
                     first-moves N SEED BUDGET, proof-tree N SEED BUDGET, solved N SEED CAT (0 classic, 1 perfect), \
                     verdicts N SEED SEED, certified N SEED DIFFICULTY (1 easy, 2 medium, 3 hard), \
                     picture NAME (basic-pictures, placed-pictures, \
                     turned-cropped-lined, texts, cat-parts)";

/// The figure that `words` (the directive after `{{#figure`) ask for.
fn figure(words: &[&str]) -> Result<String, String> {
    let (name, args) = words
        .split_first()
        .ok_or(format!("no figure named; {USAGE}"))?;
    if let ("picture", [picture]) = (*name, args) {
        return drawn_by_a_chunk(picture);
    }
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
        ("neighbours", &[n, ref cells @ ..]) => neighbours(n, cells),
        ("cats-path", &[n, x, y]) => Ok(live(
            &cats_path(n, Posn::new(x, y))?,
            words,
            "Move over a cell to mark it and see the paths as if it were blocked, and click to block it or free it again; or, once the board has the focus, mark a cell with the arrow keys and press Space.",
        )),
        ("cat-faces", &[]) => Ok(cat_faces()),
        ("cell-places", &[]) => Ok(cell_places()),
        ("distance-map", &[n, seed]) => Ok(live(
            &distance_map(n, seed)?,
            words,
            "Click a cell to block it or free it again, and every distance is counted again; or, once the board has the focus, move to a cell with the arrow keys and press Space.",
        )),
        ("world", &[n, seed]) => world(n, seed),
        ("played", &[n, seed]) => played(n, seed),
        ("game", &[n, seed]) => Ok(live(
            &game(n, seed)?,
            &["game"],
            "The game itself, on a deal drawn at random: click or tap a cell to block it; <code>?</code> or the Every key button shows every key.",
        )),
        ("keys", &[n, seed]) => keys(n, seed),
        ("coach", &[n, seed]) => coach(n, seed),
        ("two-distance", &[n, seed]) => two_distance(n, seed),
        ("escape-steps", &[n]) => escape_steps(n),
        ("pen", &[n, ref cells @ ..]) => pen(&position_world(n, cells)?),
        ("escape-after-blocks", &[n, ref cells @ ..]) => {
            escape_after_blocks(&position_world(n, cells)?)
        }
        ("fastest-after-blocks", &[n, ref cells @ ..]) => {
            fastest_after_blocks(&position_world(n, cells)?)
        }
        ("pass-relies-on", &[n, moves, ref cells @ ..]) => {
            pass_relies_on(&position_world(n, cells)?, moves)
        }
        ("escape-turn", &[n, steps, stage, ref cells @ ..]) => {
            escape_turn(&position_world(n, cells)?, steps, stage)
        }
        ("wall-off", &[n, seed, moves]) => wall_off(n, seed, moves),
        ("first-moves", &[n, seed, budget]) => first_moves(n, seed, budget),
        ("proof-tree", &[n, seed, budget]) => proof_tree(n, seed, budget),
        ("solved", &[n, seed, perfect]) => solved(n, seed, perfect),
        ("verdicts", &[n, won, lost]) => verdicts(n, won, lost),
        ("certified", &[n, seed, difficulty]) => certified(n, seed, difficulty),
        _ => Err(format!("no figure `{}`; {USAGE}", words.join(" "))),
    }
}

/// A figure drawn by a chunk of its own (the book's module `figures`): what it shows, the chunk and
/// the page it is on, and the pictures the chunk returns.
struct DrawnByAChunk {
    name: &'static str,
    shows: &'static str,
    chunk: &'static str,
    page: &'static str,
    draw: fn() -> Vec<Image>,
}

const DRAWN_BY_CHUNKS: [DrawnByAChunk; 10] = [
    DrawnByAChunk {
        name: "basic-pictures",
        shows: "A solid circle, an outlined ellipse, a solid rectangle and triangle, and an \
                outlined hexagon.",
        chunk: "the basic pictures, for a figure",
        page: "images.html",
        draw: chat_noir::figures::basic_pictures,
    },
    DrawnByAChunk {
        name: "placed-pictures",
        shows: "A dot on a square: <code>overlay</code>, <code>overlay_align</code> at the \
                bottom right, <code>underlay_offset</code> and <code>underlay_xy</code>, each \
                in its bounding box.",
        chunk: "placing pictures, for a figure",
        page: "placing.html",
        draw: chat_noir::figures::placed_pictures,
    },
    DrawnByAChunk {
        name: "turned-cropped-lined",
        shows: "<code>rotate</code>, <code>crop</code> and <code>add_line</code>, each in its \
                bounding box.",
        chunk: "turning, cropping and lines, for a figure",
        page: "placing.html",
        draw: chat_noir::figures::turned_cropped_lined,
    },
    DrawnByAChunk {
        name: "cat-parts",
        shows: "The cat's face, an ear, an eye, the nose, the happy and the straight mouth, and \
                the thinking cat they make.",
        chunk: "the cat's parts, for a figure",
        page: "drawing-cat.html",
        draw: chat_noir::cat::cat_parts,
    },
    DrawnByAChunk {
        name: "texts",
        shows: "A <code>text</code> in its bounding box, and over a rectangle.",
        chunk: "text, for a figure",
        page: "keys-on-board.html",
        draw: chat_noir::figures::texts,
    },
    DrawnByAChunk {
        name: "the-ends",
        shows: "Two games at their end: the cat shut in after twelve moves, with the panel \
                above it, and the cat on the top edge it reached, with the panel below it.",
        chunk: "the two ends of a game, for a figure",
        page: "ending.html",
        draw: chat_noir::figures::the_ends,
    },
    DrawnByAChunk {
        name: "hop-frames",
        shows: "A move of the usual board, a frame every 44 ms: the block dropping on the cell \
                above and left of the cat, and the cat's hop away from it; the last frame is the \
                game's own picture.",
        chunk: "the frames of a hop, for a figure",
        page: "motion.html",
        draw: chat_noir::motion::hop_frames,
    },
    DrawnByAChunk {
        name: "escape-frames",
        shows: "The end of a game the cat won, a frame every 80 ms from the moment it landed \
                on the top row: it bounds off the board and is gone.",
        chunk: "the frames of an escape, for a figure",
        page: "motion.html",
        draw: chat_noir::motion::escape_frames,
    },
    DrawnByAChunk {
        name: "boards-in-two-palettes",
        shows: "The usual board as it starts, the cat's paths dotted and the mouse over a \
                cell: in the original's colours, and as a live board shows it in the navy \
                theme.",
        chunk: "the usual board in two palettes, for a figure",
        page: "palette.html",
        draw: chat_noir::figures::boards_in_two_palettes,
    },
    DrawnByAChunk {
        name: "fitted-boards",
        shows: "The usual board, fitted by <code>fit</code> into a wide, a tall and a square \
                window.",
        chunk: "the board fitted to three windows, for a figure",
        page: "window.html",
        draw: chat_noir::figures::fitted_boards,
    },
];

/// The figure drawn by a chunk named `name`: the chunk's pictures in a row, twice their size, with a
/// caption that links the chunk.
fn drawn_by_a_chunk(name: &str) -> Result<String, String> {
    let figure = DRAWN_BY_CHUNKS
        .iter()
        .find(|figure| figure.name == name)
        .ok_or(format!("no picture `{name}`; {USAGE}"))?;
    let row = in_a_row((figure.draw)()).ok_or(format!("⟨{}⟩ drew no picture", figure.chunk))?;
    let svg = shown_larger(&to_svg(&row), image_width(&row) * 2.0);
    let anchor: String = figure
        .chunk
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    let caption = format!(
        "{} Drawn by <a href=\"{}#chunk-{anchor}-1\">⟨{}⟩</a>, twice its size.",
        figure.shows, figure.page, figure.chunk
    );
    Ok(html(&svg, &caption))
}

/// `pictures` side by side, centred on one line, with room between them; `None` if there are
/// none.
fn in_a_row(pictures: Vec<Image>) -> Option<Image> {
    const GAP: f64 = 16.0;
    pictures.into_iter().reduce(|row, next| {
        let (x, y) = (
            image_width(&row) + GAP,
            (image_height(&row) - image_height(&next)) / 2.0,
        );
        underlay_xy(row, x, y, next)
    })
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

/// The cells at `cells` (X and Y, two by two) of an `n` × `n` board drawn black with their
/// positions, and the six positions `adjacent` gives around each written on theirs. Every one of
/// them must be on the board.
fn neighbours(n: i32, cells: &[i32]) -> Result<String, String> {
    let n = size(n)?;
    let centres: Vec<Posn> = match cells.as_chunks::<2>() {
        (pairs, []) if !pairs.is_empty() => pairs.iter().map(|&[x, y]| Posn::new(x, y)).collect(),
        _ => return Err(format!("a cell is two numbers, X and Y; {USAGE}")),
    };
    let drawn = centres
        .iter()
        .flat_map(|&p| std::iter::once(p).chain(adjacent(p)));
    if let Some(p) = drawn.clone().find(|&p| !in_bounds(p, n)) {
        return Err(format!(
            "{} is not a cell of the {n}×{n} board",
            cell_name(p)
        ));
    }
    let board = (centres.iter()).fold(empty_board(n), |board, &p| block_cell(p, board));
    let svg = to_svg(&render_board(&board, n, |_| false, None));
    let labels = centres.iter().flat_map(|&p| {
        let centre = (p, format!("{},{}", p.x, p.y), true);
        let six = adjacent(p).map(|q| (q, format!("{},{}", q.x, q.y), false));
        std::iter::once(centre).chain(six)
    });
    let names: Vec<String> = centres.iter().map(|&p| cell_name(p)).collect();
    let caption = format!(
        "Around {}, in black: the six positions <code>adjacent</code> gives, each with its x and y.",
        names.join(" and ")
    );
    Ok(html(&with_labels(&svg, labels), &caption))
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

/// A 5×5 board twice its size, with where its cells' centres fall measured on it: a radius in from
/// the left edge on an even row, two spacings apart along a row, an odd row shifted by a spacing, and
/// rows two spacings × 433/500 apart.
fn cell_places() -> String {
    let board = render_board(&empty_board(5), 5, |_| false, None);
    let [odd, even, next] = [(0, 1), (0, 2), (1, 2)].map(|(x, y)| {
        let p = Posn::new(x, y);
        (cell_center_x(p), cell_center_y(p))
    });
    let above = |y: f64| y - 6.0;
    let marks = [
        measure((0.0, even.1), even, (even.0 / 2.0, above(even.1)), "20"),
        measure(even, next, ((even.0 + next.0) / 2.0, above(even.1)), "44"),
        measure(
            (even.0, odd.1),
            odd,
            ((even.0 + odd.0) / 2.0, above(odd.1)),
            "22",
        ),
        measure(
            (even.0, odd.1),
            even,
            (even.0 / 2.0, (odd.1 + even.1) / 2.0),
            "38.1",
        ),
    ];
    let centres = [odd, even, next].map(|(x, y)| {
        format!("<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"1.5\" fill=\"{MEASURE}\"/>\n")
    });
    let drawn = to_svg(&board).replace(
        "</svg>",
        &format!("{}{}</svg>", marks.concat(), centres.concat()),
    );
    let svg = shown_larger(&drawn, image_width(&board) * 2.0);
    html(
        &svg,
        "Where the cells of a board fall, in pixels, drawn twice their size: the first cell of an even row touches the left edge (its centre 20 in), cells along a row are 44 apart, an odd row is shifted by 22, and each row is 44 × 433/500 ≈ 38.1 below the last.",
    )
}

/// `svg` shown `width` CSS pixels wide, larger than its own size, so that its small parts can be
/// read.
fn shown_larger(svg: &str, width: f64) -> String {
    svg.replacen("<svg ", &format!("<svg style=\"width: {width}px\" "), 1)
}

/// The colour of the measures drawn over a board.
const MEASURE: &str = "#b0004f";

/// A line from `from` to `to` with `label` written at `at`, in small letters with a white halo.
fn measure(from: (f64, f64), to: (f64, f64), at: (f64, f64), label: &str) -> String {
    format!(
        "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"{MEASURE}\" stroke-width=\"0.8\"/>\n\
         <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" dominant-baseline=\"central\" font-family=\"sans-serif\" font-size=\"7\" fill=\"{MEASURE}\" stroke=\"#ffffff\" stroke-width=\"2\" paint-order=\"stroke\">{label}</text>\n",
        from.0, from.1, to.0, to.1, at.0, at.1
    )
}

fn cat_faces() -> String {
    let faces = [CatMode::Thinking, CatMode::Happy, CatMode::Mad].map(cat);
    let row = in_a_row(faces.into()).expect("three faces");
    let svg = shown_larger(&to_svg(&row), image_width(&row) * 3.0);
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
            Distance::Steps(d) => (d - 1).to_string(),
            Distance::Infinite => "∞".to_string(),
        };
        (c.p, label, c.blocked)
    });
    let svg = with_labels(
        &to_svg(&render_board(&world.board, n, |_| false, None)),
        labels,
    );
    let caption = format!(
        "The steps from every free cell to the edge (0 on the edge, ∞ where no way leads out), on the first board of seed {seed} ({n}×{n})."
    );
    Ok(html(&svg, &caption))
}

fn world(n: i32, seed: i32) -> Result<String, String> {
    let caption =
        format!("The world a game of seed {seed} starts with, drawn by <code>render_world</code>.");
    first_world(n, seed, &caption)
}

/// The first world of `seed`, as the game on a page shows it where it cannot play.
fn game(n: i32, seed: i32) -> Result<String, String> {
    let caption = format!(
        "<span class=\"chat-noir-printed-words\">A game as it starts (the deal of seed {seed}), drawn by <code>render_world</code>.</span>"
    );
    first_world(n, seed, &caption)
}

/// A game of `seed` on an `n` board played to its end against the original's cat, each move the
/// player's first move that the solver proves keeps the game won: the last world, each cell the
/// player blocked numbered with its move, and the cat's way from the middle drawn as a line.
fn played(n: i32, seed: i32) -> Result<String, String> {
    let n = size(n)?;
    let mut rng = game_rng(seed as u64);
    let mut world = make_initial_world(n, &mut rng);
    let (mut blocks, mut way) = (Vec::new(), vec![world.cat]);
    while world.state == State::Playing {
        let budget = deal_budget(Cat::Classic);
        let Verdict::Won { play, .. } = solve(&world, Cat::Classic, budget)? else {
            return Err(format!(
                "after {} moves, the game of seed {seed} is not proven won",
                blocks.len()
            ));
        };
        let click = (cell_center_x(play), cell_center_y(play));
        world = clack(world, click.0, click.1, MouseEvent::ButtonUp, &mut rng);
        blocks.push(play);
        if way.last() != Some(&world.cat) {
            way.push(world.cat);
        }
    }
    let numbered = blocks
        .iter()
        .enumerate()
        .map(|(i, &p)| (p, (i + 1).to_string(), true));
    let caption = format!(
        "A game of seed {seed} played to its end, drawn by <code>render_world</code>: each cell \
         the player blocked is numbered with its move; the blocked cells with no number were \
         blocked as the game began. The orange line is the cat's way, from the dot in the middle \
         to the arrow at the cat, a step after each move; where it crosses a numbered cell, the cat \
         stood there before the player blocked it. The cat is shut in after {} moves, each one a \
         move the solver of Part III proves keeps the game won.",
        blocks.len()
    );
    let cat = world.cat;
    let svg = to_svg(&render_world(&update_world_posn(world, None)));
    let svg = with_labels(&with_way(&svg, &way, cat), numbered);
    Ok(html(&svg, &caption))
}

/// `svg` of a board with the cat's `way` drawn over it, from cell centre to cell centre: a dot
/// where it starts, and each step stopping short of the cell where the cat is, so that the line
/// passes under the cat's picture, the last with an arrowhead.
fn with_way(svg: &str, way: &[Posn], cat: Posn) -> String {
    const ORANGE: &str = "fill=\"#ff8c00\" fill-opacity=\"0.8\"";
    let centre = |p: Posn| (cell_center_x(p), cell_center_y(p));
    let short_of = |(x, y): (f64, f64), (to_x, to_y): (f64, f64)| {
        let part = CIRCLE_RADIUS / (to_x - x).hypot(to_y - y);
        (to_x + (x - to_x) * part, to_y + (y - to_y) * part)
    };
    let (x, y) = centre(way[0]);
    let mut drawn = format!("<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"5\" {ORANGE}/>\n");
    let mut end = None;
    for step in way.windows(2) {
        let (from, to) = (centre(step[0]), centre(step[1]));
        let start = if step[0] == cat {
            short_of(to, from)
        } else {
            from
        };
        let stop = if step[1] == cat {
            short_of(from, to)
        } else {
            to
        };
        drawn.push_str(&format!(
            "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"#ff8c00\" \
             stroke-opacity=\"0.8\" stroke-width=\"3\" stroke-linecap=\"round\"/>\n",
            start.0, start.1, stop.0, stop.1
        ));
        end = Some((start, stop));
    }
    if let Some(((x0, y0), (x1, y1))) = end {
        let (dx, dy) = (
            (x1 - x0) / (x1 - x0).hypot(y1 - y0),
            (y1 - y0) / (x1 - x0).hypot(y1 - y0),
        );
        let corner = |side: f64| {
            (
                x1 - 9.0 * dx - 5.0 * side * dy,
                y1 - 9.0 * dy + 5.0 * side * dx,
            )
        };
        let ((ax, ay), (bx, by)) = (corner(1.0), corner(-1.0));
        drawn.push_str(&format!(
            "<polygon points=\"{x1:.1},{y1:.1} {ax:.1},{ay:.1} {bx:.1},{by:.1}\" {ORANGE}/>\n"
        ));
    }
    svg.replace("</svg>", &format!("{drawn}</svg>"))
}

/// The first world of `seed` on an `n` board, under `caption`.
fn first_world(n: i32, seed: i32, caption: &str) -> Result<String, String> {
    let n = size(n)?;
    let world = make_initial_world(n, &mut game_rng(seed as u64));
    Ok(html(&to_svg(&render_world(&world)), caption))
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

/// The first world of `seed`, each free cell labelled with its two-distance (the bound of "How many
/// steps an escape takes at least"), painted where that is more than the cell's distance to the edge.
fn two_distance(n: i32, seed: i32) -> Result<String, String> {
    let board = solver_board(n)?;
    let world = make_initial_world(n, &mut game_rng(seed as u64));
    let Position { blocked, cat } = board.position(&world);
    let two_distance = two_distances(&board, blocked);
    let distance = |c: u32| Some(board.nearest_steps(blocked, c).1).filter(|&d| d != u32::MAX);
    let farther = bits(board.cells & !blocked & !board.edge)
        .filter(|&c| two_distance(c) != distance(c))
        .map(|c| (board.posn(c), MARKED));
    let picture = painted_world(&world, farther);
    let labels = bits(board.cells & !blocked & !(1 << cat))
        .map(|c| (board.posn(c), steps_label(two_distance(c)), false));
    let svg = with_labels(&to_svg(&picture), labels);
    let caption = format!(
        "The two-distance of each free cell of the first board of seed {seed} ({n}×{n}), as the solver \
         counts it from the edge in; gold where it is more than the cell's distance to the edge. \
         The cat's own is in the box on it, {}; its distance is {}.",
        steps_label(two_distance(cat)),
        steps_label(distance(cat))
    );
    let cat_label = steps_label(two_distance(cat));
    Ok(html(&with_cat_label(&svg, world.cat, &cat_label), &caption))
}

/// The empty board, each cell labelled with the fewest steps the perfect cat needs to get out from
/// there, the player to move, as the solver proves them with the game's perfect cat's budget.
fn escape_steps(n: i32) -> Result<String, String> {
    let board = solver_board(n)?;
    let out = |cat| {
        let position = Position { blocked: 0, cat };
        escape_label(proven(solve_position(
            &board,
            Cat::Perfect,
            position,
            PERFECT_CAT_BUDGET,
        )))
    };
    let labels: Vec<(Posn, String, bool)> = bits(board.cells)
        .map(|c| (board.posn(c), out(c), false))
        .collect();
    let middle = Posn::new(n / 2, n / 2);
    let (_, at_middle, _) = labels
        .iter()
        .find(|(p, ..)| *p == middle)
        .expect("the middle is a cell of the board");
    let caption = format!(
        "The fewest steps the perfect cat needs to get out from each cell of the empty {n}×{n} board, \
         the player to move, as the solver proves them: a cat on a cell labelled k is held for k − 1 \
         steps. The middle, {}, is labelled {}.",
        cell_name(middle),
        at_middle
    );
    let svg = to_svg(&render_board(&empty_board(n), n, |_| false, None));
    Ok(html(&with_labels(&svg, labels.into_iter()), &caption))
}

/// A penned cat: its pen painted, and its gates, each free cell labelled with its two-distance.
fn pen(world: &World) -> Result<String, String> {
    let board = solver_board(world.size)?;
    let Position { blocked, cat } = board.position(world);
    let two_distance = two_distances(&board, blocked);
    let where_cat = cell_name(world.cat);
    if let Some(d) = two_distance(cat) {
        return Err(format!(
            "the cat at {where_cat} has a two-distance, {d}: it is not penned"
        ));
    }
    let free = board.cells & !blocked;
    let pen = board.flood(1 << cat, free & !board.counted(blocked));
    let gates = board.gates(blocked, cat);
    let painted = bits(pen)
        .map(|c| (board.posn(c), MARKED))
        .chain(bits(gates).map(|c| (board.posn(c), GATE)));
    let labels =
        bits(free & !(1 << cat)).map(|c| (board.posn(c), steps_label(two_distance(c)), false));
    let caption = format!(
        "The cat at {where_cat} of the {n}×{n} board has no two-distance: it is penned. Each free cell \
         shows its two-distance (∞: none). Its pen, the cells it reaches without stepping on a cell \
         that has one, is gold ({}); the pen's gates, the cells with a two-distance beside it, \
         pink: {}.",
        counted(u64::from(pen.count_ones()), "cell"),
        cells_named(&board, gates),
        n = world.size
    );
    let svg = with_labels(&to_svg(&painted_world(world, painted)), labels);
    Ok(html(&with_cat_label(&svg, world.cat, "∞"), &caption))
}

/// The perfect cat about to be blocked: each free cell labelled with the steps the cat needs to get
/// out once that cell is blocked, painted where that is more than after a pass (the null move).
fn escape_after_blocks(world: &World) -> Result<String, String> {
    let board = solver_board(world.size)?;
    let Position { blocked, cat } = board.position(world);
    let out = |blocked| cat_to_move(&board, Cat::Perfect, blocked, cat, PERFECT_CAT_BUDGET);
    let passed = out(blocked);
    let after: Vec<(u32, Proven)> = bits(board.cells & !blocked & !(1 << cat))
        .map(|m| (m, out(blocked | 1 << m)))
        .collect();
    let longer = after
        .iter()
        .filter(|&&(_, proven)| proven != passed)
        .map(|&(m, _)| (board.posn(m), MARKED));
    let labels = after
        .iter()
        .map(|&(m, proven)| (board.posn(m), escape_label(proven), false));
    let caption = format!(
        "The perfect cat at {} of the {n}×{n} board, the player to move. After a pass it {}; each \
         free cell shows how many steps it needs once that cell is blocked instead (∞ would mean it \
         never gets out), as the solver proves it of each step the cat may take. Only the gold cells hold it \
         longer: each lies in the carrier of its escape after a pass.",
        cell_name(world.cat),
        escape_words(passed),
        n = world.size
    );
    Ok(html(
        &with_labels(&to_svg(&painted_world(world, longer)), labels),
        &caption,
    ))
}

/// The perfect cat about to be blocked: each free cell labelled with the moves of the fastest win
/// once that cell is blocked, that move counted; the first moves of the fastest wins painted.
fn fastest_after_blocks(world: &World) -> Result<String, String> {
    let board = solver_board(world.size)?;
    let after = fastest_after_each_block(&board, world);
    let least = after.iter().filter_map(|&(_, moves)| moves.ok()).min();
    let painted = after
        .iter()
        .filter(|&&(_, moves)| moves.is_ok() && moves.ok() == least)
        .map(|&(m, _)| (board.posn(m), MARKED));
    let caption = format!(
        "The perfect cat at {} of the {n}×{n} board, the player to move. Each free cell shows the \
         fewest moves that shut the cat in once that cell is blocked, that move counted, as \
         <code>fastest_win</code> proves them after each step of the cat's{}. The fastest \
         win takes {}; its first moves are gold.",
        cell_name(world.cat),
        unknown_after(&after),
        least.map_or("none".to_string(), |n| counted(u64::from(n), "move")),
        n = world.size
    );
    let svg = with_labels(
        &to_svg(&painted_world(world, painted)),
        fastest_labels(&board, &after),
    );
    Ok(html(&svg, &caption))
}

/// The null move of "Shutting the perfect cat in" on `world`, the player to move with `moves`
/// moves to shut the cat in: the cells the cat's survival of a pass relies on painted, and each
/// free cell labelled as in `fastest_after_blocks`, so that the wins show inside the painted cells.
fn pass_relies_on(world: &World, moves: i32) -> Result<String, String> {
    let board = solver_board(world.size)?;
    let moves = moves_left(moves)?;
    let position = board.position(world);
    let relied =
        relied_on_after_a_pass(&board, position, moves, PERFECT_CAT_BUDGET).ok_or(format!(
            "after a pass, the perfect cat at {} does not survive {} (or the search cannot tell)",
            cell_name(world.cat),
            counted(u64::from(moves - 1), "move")
        ))?;
    let after = fastest_after_each_block(&board, world);
    let painted = bits(relied).map(|c| (board.posn(c), MARKED));
    let caption = format!(
        "The perfect cat at {} of the {n}×{n} board, the player to move with {} to shut it in. \
         The player passes, and the cat survives {} more, relying on the {} gold cells, as \
         <code>relied_on_after_a_pass</code> finds them; so only a block on one of them can shut \
         it in within {}. Each free cell shows the fewest moves that shut the cat in once that cell \
         is blocked, that move counted{}.",
        cell_name(world.cat),
        counted(u64::from(moves), "move"),
        counted(u64::from(moves - 1), "move"),
        relied.count_ones(),
        counted(u64::from(moves), "move"),
        unknown_after(&after),
        n = world.size
    );
    let svg = with_labels(
        &to_svg(&painted_world(world, painted)),
        fastest_labels(&board, &after),
    );
    Ok(html(&svg, &caption))
}

/// One turn of the player's in the escape search on `world`, asked whether the perfect cat gets
/// out within `steps` steps, as `player_turn_traced` follows it: at `stage` 0 the carrier of the
/// escape after a pass, at 1 the moves the cuts leave, and from 2 on each move tried in turn.
fn escape_turn(world: &World, steps: i32, stage: i32) -> Result<String, String> {
    let board = solver_board(world.size)?;
    let k = at_least_one(steps, "the steps asked about")?;
    let where_cat = cell_name(world.cat);
    let traced =
        player_turn_traced(&board, board.position(world), k, PERFECT_CAT_BUDGET).ok_or(format!(
            "the turn at {where_cat} is answered before any move is tried, or the search cannot \
             tell"
        ))?;
    let named = |set: u128| cells_named(&board, set);
    let asked = format!(
        "The perfect cat at {where_cat} of the {n}×{n} board, the player to move: does it get out \
         within {}?",
        counted(u64::from(k), "step"),
        n = world.size
    );
    let (gold, pink, told, blocked_now) = match stage {
        0 => (
            traced.passed,
            0,
            format!(
                "After a pass it does, relying on the gold cells: {}. A block anywhere else \
                 leaves that escape open.",
                named(traced.passed)
            ),
            None,
        ),
        1 => {
            let cut = traced.passed & !traced.worth_trying;
            let told = match cut {
                0 => format!(
                    "The cuts leave every cell of the pass's carrier a move to try: {}.",
                    named(traced.worth_trying)
                ),
                _ => format!(
                    "Of the pass's carrier, the cuts leave the gold moves to try, {}, and cut the \
                     pink cells, {}.",
                    named(traced.worth_trying),
                    named(cut)
                ),
            };
            (traced.worth_trying, cut, told, None)
        }
        _ => {
            let number = usize::try_from(stage - 1).map_err(|_| {
                format!("the stages are 0 (the pass), 1 (the cuts) and 2… (each move tried), not {stage}")
            })?;
            let (m, gold, pink, told) = tried_move(&traced, number, k, named)?;
            (gold, pink, told, Some((m, number)))
        }
    };
    let painted = bits(gold & !pink)
        .map(|c| (board.posn(c), MARKED))
        .chain(bits(pink).map(|c| (board.posn(c), GATE)));
    let shown = match blocked_now {
        Some((m, number)) => {
            let after = World {
                board: block_cell(board.posn(m), world.board.clone()),
                ..world.clone()
            };
            let svg = to_svg(&painted_world(&after, painted));
            with_labels(
                &svg,
                std::iter::once((board.posn(m), number.to_string(), true)),
            )
        }
        None => to_svg(&painted_world(world, painted)),
    };
    Ok(html(&shown, &format!("{asked} {told}")))
}

/// The move numbered `number` (from 1) of the turn `traced`, asked about `k` steps: the move, the
/// cells to paint gold and pink, and what it found, in words, each cell named as `named` names it.
fn tried_move(
    traced: &TurnTraced,
    number: usize,
    k: u32,
    named: impl Fn(u128) -> String,
) -> Result<(u32, u128, u128, String), String> {
    let tried = number
        .checked_sub(1)
        .and_then(|i| traced.tried.get(i))
        .ok_or(format!(
            "the turn tries {}, so its stages are 0 to {}; there is no move {number} (stage {})",
            counted(traced.tried.len() as u64, "move"),
            traced.tried.len() + 1,
            number + 1
        ))?;
    let left =
        traced.tried[..number]
            .iter()
            .fold(traced.worth_trying, |moves, tried| match tried {
                Tried::Refuted(_, relied) => moves & relied,
                Tried::Holds(..) => moves,
            });
    let steps = counted(u64::from(k), "step");
    match *tried {
        Tried::Refuted(m, relied) => {
            let rest = match left {
                0 => format!(
                    "none of the moves worth trying lies among them, so none is left: the cat \
                     gets out within {steps}, and the turn ends"
                ),
                _ => format!(
                    "of the moves worth trying, only those in pink lie among them, and are left \
                     to try: {}",
                    named(left)
                ),
            };
            let told = format!(
                "Move {number}: block {}. The cat still gets out within {steps}, relying on the \
                 gold cells; {rest}.",
                named(1 << m)
            );
            Ok((m, relied, left, told))
        }
        Tried::Holds(m, held) => {
            let how_long = held.map_or("for good".to_string(), |steps| {
                format!("for {}", counted(u64::from(steps), "step"))
            });
            let told = format!(
                "Move {number}: block {}. Now the cat does not get out within {steps} (it is held \
                 {how_long}), so the turn ends: the position holds the cat.",
                named(1 << m)
            );
            Ok((m, 0, 0, told))
        }
    }
}

/// A fastest win's moves, or the label of a cell where there is none to show: ✗ where the cat gets
/// out, ? where a search cannot tell.
type MovesOrLabel = Result<u32, &'static str>;

/// The label of a cell where the cat gets out.
const GETS_OUT: &str = "✗";
/// The label of a cell where a search cannot tell.
const CANNOT_TELL: &str = "?";

/// Each free cell of `world` but the cat's, with the moves of the fastest win once it is
/// blocked, that move counted (`fastest_cat_to_move`, plus one).
fn fastest_after_each_block(board: &Board, world: &World) -> Vec<(u32, MovesOrLabel)> {
    let Position { blocked, cat } = board.position(world);
    bits(board.cells & !blocked & !(1 << cat))
        .map(|m| (m, fastest_cat_to_move(board, blocked | 1 << m, cat)))
        .map(|(m, moves)| (m, moves.map(|n| n + 1)))
        .collect()
}

/// The labels of `fastest_after_each_block`'s cells: the moves, or why there are none.
fn fastest_labels<'a>(
    board: &'a Board,
    after: &'a [(u32, MovesOrLabel)],
) -> impl Iterator<Item = (Posn, String, bool)> + 'a {
    after.iter().map(|&(m, moves)| {
        let label = moves.map_or_else(str::to_string, |n| n.to_string());
        (board.posn(m), label, false)
    })
}

/// What the ✗ and ? among `after`'s labels mean, for a caption, where any is there.
fn unknown_after(after: &[(u32, MovesOrLabel)]) -> String {
    let meanings: Vec<String> = [
        (GETS_OUT, "the cat gets out"),
        (CANNOT_TELL, "the search cannot tell"),
    ]
    .iter()
    .filter(|(label, _)| after.iter().any(|&(_, moves)| moves == Err(*label)))
    .map(|(label, meaning)| format!("{label}: {meaning}"))
    .collect();
    match meanings.as_slice() {
        [] => String::new(),
        _ => format!(" ({})", meanings.join("; ")),
    }
}

/// The moves of the fastest win against the perfect cat at `cat`, about to step, `blocked`
/// blocked: the most that any of its steps leaves, as `fastest_win` proves them; else ✗ where the
/// cat gets out, ? where a search cannot tell.
fn fastest_cat_to_move(board: &Board, blocked: u128, cat: u32) -> MovesOrLabel {
    match cat_to_move(board, Cat::Perfect, blocked, cat, PERFECT_CAT_BUDGET) {
        Proven::Won(_) => {}
        Proven::Lost(_) => return Err(GETS_OUT),
        Proven::Unknown => return Err(CANNOT_TELL),
    }
    let budget = FastestBudget {
        shorter: 0,
        refuting: PERFECT_CAT_BUDGET,
        within: None,
    };
    bits(Cat::Perfect.steps(board, blocked, cat)).try_fold(0, |most, step| {
        let position = Position { blocked, cat: step };
        let fastest = fastest_win(board, Cat::Perfect, position, None, budget);
        Ok(most.max(fastest.exactly().ok_or(CANNOT_TELL)?))
    })
}

/// The moves left to win that a figure's words give, one at least.
fn moves_left(moves: i32) -> Result<u32, String> {
    at_least_one(moves, "the moves left")
}

/// A count a figure's words give, `what` it counts, one at least.
fn at_least_one(count: i32, what: &str) -> Result<u32, String> {
    u32::try_from(count)
        .ok()
        .filter(|&n| n > 0)
        .ok_or(format!("{what} are at least one, not {count}"))
}

/// The wall-off bound of "How fast a win can be" on the first world of `seed`, with `moves` moves
/// left to win: the cells the cat reaches within one step fewer painted, and the ways from the
/// cat's own cell to the edge with no cell in common that the bound finds, each cell numbered with
/// its way.
fn wall_off(n: i32, seed: i32, moves: i32) -> Result<String, String> {
    let board = solver_board(n)?;
    let moves = moves_left(moves)?;
    let world = make_initial_world(n, &mut game_rng(seed as u64));
    let Position { blocked, cat } = board.position(&world);
    let reached = board.reach(blocked, cat, moves - 1);
    let mut ways = Vec::new();
    let mut found = 0;
    for k in 1..=moves + 1 {
        let Some(cells) = board.separate_ways(blocked, cat, k) else {
            return Err(format!(
                "the bound finds {} separate ways from the cat's cell, not {k}",
                k - 1
            ));
        };
        ways.push(cells & !found);
        found = cells;
    }
    let painted = bits(reached)
        .map(|c| (board.posn(c), MARKED))
        .chain(bits(found & !reached).map(|c| (board.posn(c), WAY)));
    let board = &board;
    let labels = ways.iter().zip(1..).flat_map(|(&way, number)| {
        bits(way).map(move |c| (board.posn(c), format!("{number}"), false))
    });
    let within = counted(u64::from(moves), "move");
    let verdict = if board.could_win_within(blocked, cat, moves) {
        "From some gold cell it finds fewer, so a win may be left.".to_string()
    } else {
        format!(
            "It finds as many from every other gold cell off the edge, so no win is left \
             within {within} (<code>could_win_within</code> says no)."
        )
    };
    let caption = format!(
        "The first board of seed {seed} ({n}×{n}), the player to move: is a win within {within} \
         left? Gold: the cells the cat reaches within {} (<code>reach</code>); the last move of \
         such a win leaves the cat on one of them, walled off from the edge. Numbered 1 to {}, \
         pink beyond the gold: ways from the cat's own cell to the edge with no cell in common, \
         as <code>separate_ways</code> finds them one at a time; {moves} blocks more close at \
         most {moves} of them. {verdict}",
        counted(u64::from(moves - 1), "step"),
        moves + 1,
    );
    let svg = with_labels(&to_svg(&painted_world(&world, painted)), labels);
    Ok(html(&svg, &caption))
}

/// The first world of `seed`, each first move labelled with what the solver proves of the game
/// after it against the classic cat, every step of the cat solved with `budget` positions.
fn first_moves(n: i32, seed: i32, budget: i32) -> Result<String, String> {
    let board = solver_board(n)?;
    let budget = usize::try_from(budget)
        .ok()
        .filter(|&b| b > 0)
        .ok_or(format!("the budget is a number of positions, not {budget}"))?;
    let world = make_initial_world(n, &mut game_rng(seed as u64));
    let Position { blocked, cat } = board.position(&world);
    let after: Vec<(u32, Proven)> = bits(board.cells & !blocked & !(1 << cat))
        .map(|m| {
            let proven = cat_to_move(&board, Cat::Classic, blocked | 1 << m, cat, budget);
            (m, proven)
        })
        .collect();
    let won = after
        .iter()
        .filter(|&&(_, proven)| matches!(proven, Proven::Won(_)))
        .map(|&(m, _)| (board.posn(m), MARKED));
    let labels = after
        .iter()
        .map(|&(m, proven)| (board.posn(m), win_label(proven), false));
    let root = after.iter().fold(Proven::Lost(None), |root, &(_, proven)| {
        root.or_move(proven)
    });
    let caption = format!(
        "Each first move of the first board of seed {seed} ({n}×{n}), against the classic cat, \
         labelled with what the solver proves of the game after it, each answer of the cat \
         searched with a budget of {} positions: in gold, won within the number of moves shown, \
         counting this one (the child's proof number is 0); ✗, lost (its disproof number is 0); \
         ?, not known. So the position is {}.",
        thousands(budget as usize),
        first_move_words(root)
    );
    Ok(html(
        &with_labels(&to_svg(&painted_world(&world, won)), labels),
        &caption,
    ))
}

/// The colour of the cells a figure points out.
const MARKED: Color = Color::rgb(255, 215, 0);
/// The colour of a pen's gates.
const GATE: Color = Color::rgb(255, 160, 160);
/// A first move of a certified deal not proven to keep it won: the gates' pink, which no other
/// cell of that figure has.
const NOT_KEPT: Color = GATE;
/// The colour of the cells of the ways the wall-off bound finds, beyond the cells it asks about.
const WAY: Color = Color::rgb(255, 182, 193);

/// The solver's board for a world of size `n`, or why it has none.
/// How many of a node's children the tree figure shows; the rest are one box, with the numbers
/// they give their parent together.
const CHILDREN_SHOWN: usize = 5;

/// The first levels of a proof-number search from the first board of `seed`, grown to `budget`
/// nodes, as a tree of boxes, each with its proof and disproof numbers.
fn proof_tree(n: i32, seed: i32, budget: i32) -> Result<String, String> {
    let board = solver_board(n)?;
    let budget = usize::try_from(budget)
        .ok()
        .filter(|&b| b > 1)
        .ok_or(format!(
            "the budget is a number of nodes, more than 1, not {budget}"
        ))?;
    let world = make_initial_world(n, &mut game_rng(seed as u64));
    let tree = search_tree(&board, board.position(&world), budget);
    let below = |parent: usize| -> Vec<usize> {
        (0..tree.len())
            .filter(|&i| tree[i].parent == Some(parent))
            .collect()
    };
    let children = below(0);
    let expanded = children.iter().position(|&c| !below(c).is_empty());
    let (second, second_rest) = shown_row(&tree, &children);
    let third = expanded.map_or(Vec::new(), |e| shown_row(&tree, &below(children[e])).0);
    let second_x: Vec<f64> = (0..second.len()).map(|i| i as f64 * TREE_STEP).collect();
    let root_x = second_x.last().copied().unwrap_or(0.0) / 2.0;
    let parent_x = expanded.map_or(root_x, |e| second_x[e.min(second_x.len() - 1)]);
    let third_x: Vec<f64> = (0..third.len())
        .map(|i| parent_x + (i as f64 - (third.len() as f64 - 1.0) / 2.0) * TREE_STEP)
        .collect();
    let all_x = || second_x.iter().chain(&third_x).chain([&root_x]).copied();
    let left = all_x().fold(f64::INFINITY, f64::min);
    let right = all_x().fold(f64::NEG_INFINITY, f64::max);
    let rows = if third.is_empty() { 2.0 } else { 3.0 };
    let height = (rows - 1.0) * TREE_ROW + 12.0 + TREE_BOX.1;
    let canvas = rectangle(right - left + TREE_BOX.0, height, Mode::Solid, TRANSPARENT);
    let root = (root_x - left, 0.0);
    let mut picture = tree_node(canvas, root, &node_words(&tree[0]), None, true);
    for ((words, cell, player), x) in second.iter().zip(&second_x) {
        let at = (x - left, TREE_ROW);
        picture = tree_edge(picture, root, at);
        picture = tree_node(picture, at, words, cell.as_deref(), *player);
    }
    for ((words, cell, player), x) in third.iter().zip(&third_x) {
        let at = (x - left, 2.0 * TREE_ROW);
        picture = tree_edge(picture, (parent_x - left, TREE_ROW), at);
        picture = tree_node(picture, at, words, cell.as_deref(), *player);
    }
    let svg = shown_larger(&to_svg(&picture), image_width(&picture) * 1.25);
    let rest = if second_rest > 0 {
        format!(
            " The root has {} moves, the free cells on and beside the cat's shortest paths that \
             the search tries (<a href=\"#two-refinements\">Two refinements</a>); the last box \
             stands for the {second_rest} not drawn, with the smallest of their proof numbers and \
             the sum of their disproof numbers.",
            children.len()
        )
    } else {
        String::new()
    };
    let caption = format!(
        "The top of the tree a proof-number search grows from the first board of seed {seed} \
         ({n}×{n}, against the classic cat) in {budget} nodes, as <code>search_tree</code> reads \
         it: each box gives a node's proof and disproof numbers (∞ for infinite), square where the \
         player moves, round where the cat does, under the cell blocked or stepped to. The player's \
         nodes take the smallest proof and the sum of the disproofs of their children; the cat's, \
         the sum of the proofs and the smallest disproof.{rest}"
    );
    Ok(html_at_its_own_size(&svg, &caption))
}

/// A node's box and edge sizes in the tree figure, in board units.
const TREE_BOX: (f64, f64) = (60.0, 26.0);
const TREE_STEP: f64 = 74.0;
const TREE_ROW: f64 = 64.0;

/// The words in a node's box, the cell above it, and whether the player moves there, for each of
/// `nodes`, the first few shown alone and the rest as one box; how many that box stands for.
fn shown_row(tree: &[TreeNode], nodes: &[usize]) -> (Vec<(String, Option<String>, bool)>, usize) {
    let mut row: Vec<(String, Option<String>, bool)> = nodes
        .iter()
        .take(CHILDREN_SHOWN)
        .map(|&i| {
            (
                node_words(&tree[i]),
                tree[i].cell.map(cell_name),
                tree[i].player,
            )
        })
        .collect();
    let rest: Vec<&TreeNode> = nodes
        .iter()
        .skip(CHILDREN_SHOWN)
        .map(|&i| &tree[i])
        .collect();
    if let Some(first) = rest.first() {
        let proof = rest.iter().map(|n| n.proof).min().unwrap_or(u32::MAX);
        let disproof = rest
            .iter()
            .fold(0u32, |sum, n| sum.saturating_add(n.disproof));
        let words = format!("{} | {}", number_words(proof), number_words(disproof));
        row.push((words, Some(format!("{} more", rest.len())), first.player));
    }
    (row, rest.len())
}

fn node_words(node: &TreeNode) -> String {
    format!(
        "{} | {}",
        number_words(node.proof),
        number_words(node.disproof)
    )
}

fn number_words(number: u32) -> String {
    if number == u32::MAX {
        "∞".to_string()
    } else {
        number.to_string()
    }
}

/// `picture` with a node's box at `at`, its numbers inside and the cell that led to it above.
fn tree_node(
    picture: Image,
    at: (f64, f64),
    words: &str,
    cell: Option<&str>,
    player: bool,
) -> Image {
    let (w, h) = TREE_BOX;
    let fill = if player {
        Color::rgb(255, 255, 255)
    } else {
        Color::rgb(255, 228, 225)
    };
    let frame = if player {
        overlay(
            rectangle(w, h, Mode::Outline, Color::rgb(0, 0, 0)),
            rectangle(w, h, Mode::Solid, fill),
        )
    } else {
        overlay(
            ellipse(w, h, Mode::Outline, Color::rgb(0, 0, 0)),
            ellipse(w, h, Mode::Solid, fill),
        )
    };
    let boxed = overlay(text(words, 13.0, Color::rgb(0, 0, 0)), frame);
    let picture = underlay_xy(picture, at.0, at.1 + 12.0, boxed);
    match cell {
        Some(cell) => {
            let label = text(cell, 10.0, Color::rgb(90, 90, 90));
            let x = at.0 + (w - image_width(&label)) / 2.0;
            underlay_xy(picture, x, at.1, label)
        }
        None => picture,
    }
}

/// `picture` with a line from the bottom of the box at `from` to the top of the one at `to`.
fn tree_edge(picture: Image, from: (f64, f64), to: (f64, f64)) -> Image {
    let (w, h) = TREE_BOX;
    let color = Color::rgb(150, 150, 150);
    add_line(
        picture,
        from.0 + w / 2.0,
        from.1 + 12.0 + h,
        to.0 + w / 2.0,
        to.1 - 1.0,
        color,
    )
}

/// The first board of `seed` with what the solver proves of it against the classic cat (0) or the
/// perfect cat (1), with the move that keeps a won deal won in gold.
fn solved(n: i32, seed: i32, perfect: i32) -> Result<String, String> {
    let cat = match perfect {
        0 => Cat::Classic,
        1 => Cat::Perfect,
        _ => {
            return Err(format!(
                "the cat is 0 (classic) or 1 (perfect), not {perfect}; {USAGE}"
            ));
        }
    };
    let world = make_initial_world(size(n)?, &mut game_rng(seed as u64));
    let budget = deal_budget(cat);
    let verdict = solve(&world, cat, budget)?;
    let (play, said) = match verdict {
        Verdict::Won { play, moves } => (
            Some(play),
            format!(
                "won: the move in gold keeps it won{}",
                moves.map_or(String::new(), |m| format!(
                    ", within {m} moves whatever the cat does"
                ))
            ),
        ),
        Verdict::Lost { steps } => (
            None,
            format!(
                "lost: the cat gets out{}, whatever the player blocks",
                steps.map_or(String::new(), |s| format!(" within {s} steps"))
            ),
        ),
        Verdict::Unknown { .. } => (None, "not decided within the budget".to_string()),
    };
    let caption = format!(
        "What <code>solve</code> proves of the first board of seed {seed} ({n}×{n}) against the \
         {} cat, with {} positions: {said}.",
        if perfect == 1 { "perfect" } else { "classic" },
        thousands(budget)
    );
    let painted = play.map(|p| (p, MARKED));
    Ok(html(
        &to_svg(&painted_world(&world, painted.into_iter())),
        &caption,
    ))
}

/// Two first boards side by side, against the perfect cat: the deal of `won`, with the move that
/// keeps it won in gold, and the deal of `lost`, as the solver decides them.
fn verdicts(n: i32, won: i32, lost: i32) -> Result<String, String> {
    let board = solver_board(n)?;
    let budget = 3_000_000;
    let deal = |seed: i32| {
        let world = make_initial_world(n, &mut game_rng(seed as u64));
        let verdict = solve_position(&board, Cat::Perfect, board.position(&world), budget);
        (world, verdict)
    };
    let ((won_world, won_verdict), (lost_world, lost_verdict)) = (deal(won), deal(lost));
    let Verdict::Won { play, moves } = won_verdict else {
        return Err(format!(
            "the deal of seed {won} is not proven won: {won_verdict:?}"
        ));
    };
    let Verdict::Lost { steps } = lost_verdict else {
        return Err(format!(
            "the deal of seed {lost} is not proven lost: {lost_verdict:?}"
        ));
    };
    let left = painted_world(&won_world, [(play, MARKED)].into_iter());
    let right = painted_world(&lost_world, std::iter::empty());
    let row = in_a_row(vec![left, right]).ok_or("two boards")?;
    let within =
        |n: Option<u32>, what: &str| n.map_or(String::new(), |n| format!(" within {n} {what}"));
    let caption = format!(
        "Two deals of the {n}×{n} board against the perfect cat, as the solver decides them \
         with {} positions: the deal of seed {won} is won{}, the first move in gold; from the \
         deal of seed {lost} the cat gets out{}, whatever the player blocks.",
        thousands(budget),
        within(moves, "moves"),
        within(steps, "steps")
    );
    Ok(html(&to_svg(&row), &caption))
}

/// The deal `chat-noir --size N --seed SEED --difficulty D` plays against the classic cat, found
/// as the program finds it.
fn certified(n: i32, seed: i32, difficulty: i32) -> Result<String, String> {
    let size = size(n)?;
    let wanted = match difficulty {
        1 => Difficulty::Easy,
        2 => Difficulty::Medium,
        3 => Difficulty::Hard,
        _ => {
            return Err(format!(
                "the difficulty is 1, 2 or 3, not {difficulty}; {USAGE}"
            ));
        }
    };
    let settings = (size, Cat::Classic, deal_budget(Cat::Classic));
    let found = certified_deal_in_turn(settings, seed as u64, Some((wanted, FIRST_MOVE_BUDGET)))?;
    let world = make_initial_world(size, &mut game_rng(found.seed));
    let board = solver_board(size)?;
    let (moves, keeps) = first_moves_keep(
        &board,
        Cat::Classic,
        board.position(&world),
        FIRST_MOVE_BUDGET,
    );
    let (kept, lost): (Vec<_>, Vec<_>) = keeps.partition(|&(_, kept)| kept);
    let name = format!("{wanted:?}").to_lowercase();
    let which = if found.seed == seed as u64 {
        format!("the deal of seed {seed} itself")
    } else {
        format!(
            "the deal of seed {}, the first from seed {seed} on",
            found.seed
        )
    };
    let caption = format!(
        "The deal <code>chat-noir{} --seed {seed} --difficulty {name}</code> plays: {which}, \
         proven won against the classic cat and judged {name}. Of its {moves} first moves near \
         the cat's paths, the {} in gold keep it won; the {} in pink are not proven to within \
         the small budget each is given. The other free cells are not near the paths, and not \
         tried.",
        if size == BOARD_SIZE {
            String::new()
        } else {
            format!(" --size {size}")
        },
        kept.len(),
        lost.len()
    );
    let painted = kept
        .iter()
        .map(|&(m, _)| (board.posn(m), MARKED))
        .chain(lost.iter().map(|&(m, _)| (board.posn(m), NOT_KEPT)));
    Ok(html(&to_svg(&painted_world(&world, painted)), &caption))
}

fn solver_board(n: i32) -> Result<Board, String> {
    Board::new(size(n)?).map_err(|e| format!("board size: {e}"))
}

/// The world of an `n` × `n` board with the cat on the cell of the first two of `cells` and the
/// cells of the others, two by two, blocked: a position the book gives cell by cell.
fn position_world(n: i32, cells: &[i32]) -> Result<World, String> {
    let n = size(n)?;
    let posns: Vec<Posn> = match cells.as_chunks::<2>() {
        (pairs, []) => pairs.iter().map(|&[x, y]| Posn::new(x, y)).collect(),
        _ => return Err(format!("a cell is two numbers, X and Y; {USAGE}")),
    };
    if let Some(p) = posns.iter().find(|&&p| !in_bounds(p, n)) {
        return Err(format!(
            "{} is not a cell of the {n}×{n} board",
            cell_name(*p)
        ));
    }
    let (&cat, blocked) = posns
        .split_first()
        .ok_or(format!("no cell for the cat; {USAGE}"))?;
    if blocked.contains(&cat) {
        return Err(format!("the cat's cell {} is blocked", cell_name(cat)));
    }
    let board = blocked
        .iter()
        .fold(empty_board(n), |board, &p| block_cell(p, board));
    Ok(World {
        board,
        cat,
        state: State::Playing,
        size: n,
        mouse_posn: None,
        help: false,
    })
}

/// A cell as the book writes it: `(x, y)`.
fn cell_name(p: Posn) -> String {
    format!("({}, {})", p.x, p.y)
}

/// The cells of `set` on `board`, as the book writes them, a comma between each two.
fn cells_named(board: &Board, set: u128) -> String {
    let names: Vec<String> = bits(set).map(|c| cell_name(board.posn(c))).collect();
    names.join(", ")
}

/// The two-distance of each cell, `blocked` blocked (`None` where it is infinite), as the solver
/// counts it (`Board::escape_bounds`).
fn two_distances(board: &Board, blocked: u128) -> impl Fn(u32) -> Option<u32> {
    let mut by_cell = vec![None; u128::BITS as usize];
    for (steps, cell) in board.escape_bounds(blocked, board.cells & !blocked) {
        by_cell[cell as usize] = (steps != u32::MAX).then_some(steps);
    }
    move |cell| by_cell[cell as usize]
}

/// What the solver proves of a position where the cat is about to step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Proven {
    /// The player wins, within so many moves when they were counted.
    Won(Option<u32>),
    /// The cat gets out, within so many steps (its own counted) when they were counted.
    Lost(Option<u32>),
    /// The budget ran out first.
    Unknown,
}

impl Proven {
    /// What the solver proves of a cat that may take a step proven `self` or one proven `other`:
    /// the cat chooses, so it gets out as soon as either known escape lets it, and is shut in only
    /// as late as the slower of the two wins.
    fn or_step(self, other: Proven) -> Proven {
        match (self, other) {
            (Proven::Lost(a), Proven::Lost(b)) => Proven::Lost(a.into_iter().chain(b).min()),
            (Proven::Lost(_), Proven::Unknown) | (Proven::Unknown, Proven::Lost(_)) => {
                Proven::Lost(None)
            }
            (lost @ Proven::Lost(_), _) | (_, lost @ Proven::Lost(_)) => lost,
            (Proven::Unknown, _) | (_, Proven::Unknown) => Proven::Unknown,
            (Proven::Won(a), Proven::Won(b)) => Proven::Won(a.zip(b).map(|(a, b)| a.max(b))),
        }
    }

    /// What the solver proves of a position where the player, to move, may make a move proven
    /// `self` or one proven `other`: the player chooses.
    fn or_move(self, other: Proven) -> Proven {
        match (self, other) {
            (Proven::Won(a), Proven::Won(b)) => Proven::Won(a.into_iter().chain(b).min()),
            (won @ Proven::Won(_), _) | (_, won @ Proven::Won(_)) => won,
            (Proven::Unknown, _) | (_, Proven::Unknown) => Proven::Unknown,
            (Proven::Lost(_), Proven::Lost(_)) => Proven::Lost(None),
        }
    }
}

/// What a verdict of the solver proves, the player to move.
fn proven(verdict: Verdict) -> Proven {
    match verdict {
        Verdict::Won { moves, .. } => Proven::Won(moves),
        Verdict::Lost { steps } => Proven::Lost(steps),
        Verdict::Unknown { .. } => Proven::Unknown,
    }
}

/// What the solver proves of the cat at `cat` about to step, `blocked` blocked: out at once where
/// it may step onto the edge, and otherwise what `solve_position` proves after each of its steps,
/// the cat choosing. A cat with no step is shut in, in no more moves.
fn cat_to_move(board: &Board, rule: Cat, blocked: u128, cat: u32, budget: usize) -> Proven {
    let steps = rule.steps(board, blocked, cat);
    if steps & board.edge != 0 {
        return Proven::Lost(Some(1));
    }
    let after_step = |step| {
        let verdict = solve_position(board, rule, Position { blocked, cat: step }, budget);
        match proven(verdict) {
            Proven::Lost(steps) => Proven::Lost(steps.map(|s| s + 1)),
            other => other,
        }
    };
    bits(steps)
        .map(after_step)
        .fold(Proven::Won(Some(0)), Proven::or_step)
}

/// A count of steps, or ∞ for none.
fn steps_label(steps: Option<u32>) -> String {
    steps.map_or("∞".to_string(), |s| s.to_string())
}

/// How soon the cat gets out: its steps, ∞ for never, ? where the solver could not tell.
fn escape_label(proven: Proven) -> String {
    match proven {
        Proven::Lost(Some(steps)) => steps.to_string(),
        Proven::Won(_) => "∞".to_string(),
        Proven::Lost(None) | Proven::Unknown => "?".to_string(),
    }
}

/// How soon the cat gets out, in words.
fn escape_words(proven: Proven) -> String {
    match proven {
        Proven::Lost(Some(steps)) => format!("gets out in {}", counted(u64::from(steps), "step")),
        Proven::Won(_) => "never gets out".to_string(),
        Proven::Lost(None) | Proven::Unknown => {
            "may get out, the solver cannot tell how soon".to_string()
        }
    }
}

/// The moves of a win after a first move, that one counted; ✗ for a loss, ? where the solver could
/// not tell.
fn win_label(proven: Proven) -> String {
    match proven {
        Proven::Won(Some(moves)) => (moves + 1).to_string(),
        Proven::Won(None) => "✓".to_string(),
        Proven::Lost(_) => "✗".to_string(),
        Proven::Unknown => "?".to_string(),
    }
}

/// What is proven of a position from what is proven after each first move, in words.
fn first_move_words(proven: Proven) -> String {
    match proven {
        Proven::Won(Some(moves)) => format!("won within {} moves", moves + 1),
        Proven::Won(None) => "won".to_string(),
        Proven::Lost(_) => "lost".to_string(),
        Proven::Unknown => "not known".to_string(),
    }
}

/// The world as `render_world` draws it, but with the given cells painted the given colours under
/// the cat, and without help.
fn painted_world(world: &World, painted: impl Iterator<Item = (Posn, Color)>) -> Image {
    let board = render_board(&world.board, world.size, |_| false, None);
    let board = painted.fold(board, |image, (p, color)| {
        let (x, y) = (
            cell_center_x(p) - CIRCLE_RADIUS,
            cell_center_y(p) - CIRCLE_RADIUS,
        );
        underlay_xy(image, x, y, circle(CIRCLE_RADIUS, Mode::Solid, color))
    });
    let the_cat = cat(CatMode::Thinking);
    let x = cell_center_x(world.cat) - image_width(&the_cat) / 2.0;
    let y = cell_center_y(world.cat) - image_height(&the_cat) / 2.0;
    crop_whiskers(world, underlay_xy(board, x, y, the_cat))
}

/// The SVG with a text label centred on each given cell (white on a blocked cell, ringed in
/// black so that a line drawn across the cell passes around its digits).
fn with_labels(svg: &str, labels: impl Iterator<Item = (Posn, String, bool)>) -> String {
    let mut text = String::new();
    for (p, label, on_black) in labels {
        let (fill, halo) = if on_black {
            (
                "#ffffff",
                " stroke=\"#000000\" stroke-width=\"4\" paint-order=\"stroke\"",
            )
        } else {
            ("#000000", "")
        };
        text.push_str(&format!(
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" dominant-baseline=\"central\" font-family=\"sans-serif\" font-size=\"15\" fill=\"{fill}\"{halo}>{}</text>\n",
            cell_center_x(p),
            cell_center_y(p),
            escape(&label)
        ));
    }
    svg.replace("</svg>", &format!("{text}</svg>"))
}

/// `svg` of a board with `label` in a small white box at the foot of the cat's cell `cat`, where the
/// cat's picture leaves room for it, the box as wide as the label needs.
fn with_cat_label(svg: &str, cat: Posn, label: &str) -> String {
    let (x, y) = (cell_center_x(cat), cell_center_y(cat) + 12.0);
    let width = (label.chars().count() as f64 * 6.0 + 4.0).max(16.0);
    let badge = format!(
        "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{width}\" height=\"12\" rx=\"3\" fill=\"#ffffff\" stroke=\"#000000\" stroke-width=\"0.75\"/>\n\
         <text x=\"{x:.1}\" y=\"{y:.1}\" text-anchor=\"middle\" dominant-baseline=\"central\" font-family=\"sans-serif\" font-size=\"10\" fill=\"#000000\">{}</text>\n",
        x - width / 2.0,
        y - 6.0,
        escape(label)
    );
    svg.replace("</svg>", &format!("{badge}</svg>"))
}

/// `n` written as the book's tables write numbers, with a comma between each three digits.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut written = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            written.push(',');
        }
        written.push(digit);
    }
    written
}

/// Text made safe inside SVG and HTML. (The weaver has the same function; this program keeps its
/// own so that it does not depend on the tangler, whose build would then differ from the weaver's and
/// be compiled twice in the book's first build.)
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A figure the book's script makes live where the game runs in the page (see "Playing in the
/// browser" and "The page's calls"): it is marked with the words that name the live figure, and what its caption says once
/// live, with the chunk that draws it (the game's, or the live figures').
fn live(html: &str, words: &[&str], what_to_do: &str) -> String {
    let (chunk, page, anchor, chapter) = match words {
        ["game"] => (
            "a game in a page",
            "web.html",
            "chunk-a-game-in-a-page-1",
            "Playing in the browser",
        ),
        _ => (
            "a live figure",
            "web-calls.html",
            "chunk-a-live-figure-1",
            "The page's calls",
        ),
    };
    let caption = format!(
        "Live: {what_to_do} Drawn in the page by <a href=\"{page}#{anchor}\">⟨{chunk}⟩</a> and the \
         chunks it uses, in {chapter}."
    );
    let attribute = |text: &str| text.replace('&', "&amp;").replace('"', "&quot;");
    html.replacen(
        "<figure class=\"chunk-figure\">",
        &format!(
            "<figure class=\"chunk-figure\" data-live=\"{}\" data-live-caption=\"{}\">",
            attribute(&words.join(" ")),
            attribute(&caption)
        ),
        1,
    )
}

fn html(svg: &str, caption: &str) -> String {
    format!(
        "<figure class=\"chunk-figure\">\n{}<figcaption>{caption}</figcaption>\n</figure>",
        svg.trim_end()
    )
}

/// `html` for a figure whose words must stay readable: on a narrow page the picture keeps its own
/// size and scrolls sideways rather than shrinking, and the caption stays in the column (the
/// book's style sheet, `at-its-own-size`).
fn html_at_its_own_size(svg: &str, caption: &str) -> String {
    let scrolling = format!(
        "<div class=\"at-its-own-size\">\n{}\n</div>\n",
        svg.trim_end()
    );
    html(&scrolling, caption)
}
