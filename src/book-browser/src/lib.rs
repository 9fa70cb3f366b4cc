//! The woven book in a real browser: `tests/browser.rs` checks it, and `examples/page_speed.rs`
//! measures the game in its pages. A package of its own, so that only they compile the DevTools
//! client. What both need is here: the book served over HTTP, as `mdbook serve` serves it, and a tab
//! of a given size.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;

use headless_chrome::Tab;
use headless_chrome::protocol::cdp::Emulation;

/// Serves the files under `root` on a local port of their own, on threads that live as long as the
/// program; the port. Browsers fetch a page's WebAssembly only over HTTP, never from `file://`.
pub fn serve(root: &Path) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a local port");
    let port = listener.local_addr().expect("a bound port").port();
    let root = root.to_path_buf();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let root = root.clone();
            std::thread::spawn(move || answer(&root, stream));
        }
    });
    port
}

/// Answers one request for a file under `root`: the file, or 404 for anything else.
fn answer(root: &Path, mut stream: TcpStream) {
    let mut request = String::new();
    if BufReader::new(&stream).read_line(&mut request).is_err() {
        return;
    }
    let path = request.split_whitespace().nth(1).unwrap_or("/");
    let path = path.split(['?', '#']).next().unwrap_or("/");
    let file = root.join(path.trim_start_matches('/'));
    let (status, body) = match std::fs::read(&file) {
        Ok(body) if !path.contains("..") => ("200 OK", body),
        _ => ("404 Not Found", Vec::new()),
    };
    let kind = match file.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript",
        Some("css") => "text/css",
        Some("wasm") => "application/wasm",
        Some("svg") => "image/svg+xml",
        _ => "application/octet-stream",
    };
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(&body);
}

/// Makes `tab`'s window `width` × `height` CSS pixels, one device pixel to each, and a phone's (as
/// a phone's browser lays pages out) when narrower than 600.
pub fn window_size(tab: &Tab, size: (u32, u32)) {
    window_size_and_density(tab, size, 1.0);
}

/// Makes `tab`'s window `width` × `height` CSS pixels, `density` device pixels to each (2 for a
/// page zoomed to 200 %), and a phone's when narrower than 600.
pub fn window_size_and_density(tab: &Tab, (width, height): (u32, u32), density: f64) {
    tab.call_method(Emulation::SetDeviceMetricsOverride {
        width,
        height,
        device_scale_factor: density,
        mobile: width < 600,
        scale: None,
        screen_width: None,
        screen_height: None,
        position_x: None,
        position_y: None,
        dont_set_visible_size: None,
        screen_orientation: None,
        viewport: None,
        display_feature: None,
        device_posture: None,
    })
    .expect("the window's size");
}
