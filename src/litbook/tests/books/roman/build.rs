//! Tangles the book in docs/chapters into `OUT_DIR`.

fn main() {
    litbook::build_script::run();
}
