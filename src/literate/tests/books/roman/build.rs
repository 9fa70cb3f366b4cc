//! Tangles the book in docs/chapters into `OUT_DIR`.

fn main() {
    literate::build_script::run();
}
