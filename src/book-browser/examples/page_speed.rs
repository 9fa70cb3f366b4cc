//! Measures the game in the book's pages, in Chromium, on the book `bash .ci/web` built (book/book),
//! served locally: the WebAssembly's size, whole and compressed with gzip; the time from opening the
//! first page to its board drawn; and, at each board size (and on 11×11 against the perfect cat,
//! whose step is a search), the time from a click's release to the canvas drawn and to the frame
//! that shows the cat's step. Prints the medians, for the results of
//! the Measuring Speed chapter:
//!
//! ```text
//! bash .ci/web && cargo run --release -p book-browser --example page_speed
//! ```

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use chat_noir::drawing::{cell_center_x, cell_center_y};
use chat_noir::graph::adjacent;
use chat_noir::play::fit;
use chat_noir::web::LiveBoard;
use headless_chrome::browser::tab::point::Point;
use headless_chrome::{Browser, LaunchOptions, Tab};

/// How many times the first page is opened, and how many clicks each size is timed on.
const LOADS: usize = 15;
const CLICKS: usize = 30;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../book/book");
    let wasm = root.join("play/chat_noir.wasm");
    let bytes = std::fs::metadata(&wasm)
        .unwrap_or_else(|_| panic!("{} is missing: run `bash .ci/web` first", wasm.display()))
        .len();
    let gzip = Command::new("gzip")
        .args(["-9", "-c"])
        .arg(&wasm)
        .output()
        .expect("gzip runs");
    println!(
        "the page's WebAssembly: {} KB, {} KB with gzip -9",
        bytes / 1000,
        gzip.stdout.len() / 1000
    );
    let port = book_browser::serve(&root.canonicalize().unwrap());
    let browser = Browser::new(
        LaunchOptions::default_builder()
            .path(Some(
                std::env::var_os("CHROMIUM").map_or("/usr/bin/chromium".into(), Into::into),
            ))
            .sandbox(false)
            .window_size(Some((1200, 1400)))
            .build()
            .expect("launch options"),
    )
    .expect("Chromium starts");
    let loads: Vec<f64> = (0..LOADS)
        .map(|_| {
            let tab = open(&browser, port, "index.html");
            number(
                &tab,
                "performance.getEntriesByName('chat-noir-first-drawing')[0].startTime",
            )
        })
        .collect();
    println!(
        "opening the first page to its board drawn: {:.0} ms (median of {LOADS})",
        median(loads)
    );
    for (size, cat) in [(11, ""), (41, ""), (101, ""), (11, "-perfect")] {
        let (drawn, frame) = clicks(&browser, port, size, cat);
        let against = if cat.is_empty() {
            ""
        } else {
            ", against the perfect cat"
        };
        println!(
            "{size}×{size}{against}: a click's release to the canvas drawn {:.1} ms, to the frame that shows it {:.1} ms (medians of {CLICKS})",
            median(drawn),
            median(frame)
        );
    }
}

/// The times of `CLICKS` clicks beside the cat on boards of `size`, over as many games as it takes
/// (`cat` ends their codes: `-perfect` for the perfect cat): to the canvas drawn, and to the frame.
fn clicks(browser: &Browser, port: u16, size: i32, cat: &str) -> (Vec<f64>, Vec<f64>) {
    let (mut drawn, mut frame) = (Vec::new(), Vec::new());
    let mut seed = 1;
    while drawn.len() < CLICKS {
        let code = format!("{size}-{seed}-{cat}");
        let tab = open(browser, port, &format!("index.html#game={code}"));
        let rect: Vec<f64> = serde_json::from_str(&string(
            &tab,
            "(() => { const r = document.querySelector('canvas.chat-noir-live').getBoundingClientRect(); return JSON.stringify([r.left, r.top, r.width, r.height]); })()",
        ))
        .unwrap();
        let mut page = LiveBoard::replay(&code).unwrap();
        let view = fit(size, [rect[2], rect[3]]);
        while drawn.len() < CLICKS {
            let game = page.game().unwrap();
            let world = &game.world;
            let free = |p: &chat_noir::world::Posn| {
                *p != world.cat && world.board.iter().any(|c| c.p == *p && !c.blocked)
            };
            let Some(cell) = adjacent(world.cat).into_iter().find(free) else {
                break;
            };
            let at = [
                view.left + cell_center_x(cell) * view.scale,
                view.top + cell_center_y(cell) * view.scale,
            ];
            page.mouse(at, chat_noir::input::MouseEvent::ButtonUp);
            tab.click_point(Point {
                x: rect[0] + at[0],
                y: rect[1] + at[1],
            })
            .unwrap();
            std::thread::sleep(Duration::from_millis(50));
            drawn.push(number(
                &tab,
                "performance.getEntriesByName('chat-noir-drawn').at(-1).duration",
            ));
            frame.push(number(
                &tab,
                "performance.getEntriesByName('chat-noir-frame').at(-1).duration",
            ));
            if !page.status(true).contains(": move ") {
                break;
            }
        }
        seed += 1;
    }
    (drawn, frame)
}

/// A new tab on `path` of the served book, once its first board is drawn.
fn open(browser: &Browser, port: u16, path: &str) -> std::sync::Arc<Tab> {
    let tab = browser.new_tab().expect("a tab");
    book_browser::window_size(&tab, (1200, 1400));
    tab.navigate_to(&format!("http://127.0.0.1:{port}/{path}"))
        .unwrap();
    tab.wait_until_navigated().unwrap();
    for _ in 0..3000 {
        let drawn = "performance.getEntriesByName('chat-noir-first-drawing').length > 0";
        if tab.evaluate(drawn, false).ok().and_then(|r| r.value)
            == Some(serde_json::Value::Bool(true))
        {
            return tab;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("{path}: no board drawn within 30 s");
}

fn string(tab: &Tab, expression: &str) -> String {
    let value = tab.evaluate(expression, false).unwrap().value;
    value
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn number(tab: &Tab, expression: &str) -> f64 {
    let value = tab.evaluate(expression, false).unwrap().value;
    value
        .and_then(|v| v.as_f64())
        .unwrap_or_else(|| panic!("{expression} is not a number"))
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}
