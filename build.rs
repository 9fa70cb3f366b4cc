//! Tangles the book: every root chunk of `book/src` becomes a Rust file in `OUT_DIR`, which the shells
//! in `src/` and `tests/` include. Problems are reported at their Markdown places and stop the build.
//!
//! Then writes the font the game's pages draw their letters with: Noto Sans cut down to the letters
//! the board draws ("Only the letters the board draws", in the chapter on keys on the board).

use std::path::Path;

use allsorts::binary::read::ReadScope;
use allsorts::font_data::FontData;
use allsorts::subset::{CmapTarget, SubsetProfile, subset};

/// The letters the board draws: printable ASCII, the ellipsis of a shortened game's code, and
/// the infinity of a distance figure's walled-in cells.
const BOARD_LETTERS: &str = concat!(
    " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~…∞"
);

fn main() {
    litbook::build_script::run();
    let out_dir = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR for a build script");
    write_board_font(&Path::new(&out_dir).join("board-font.ttf"));
}

/// Writes Noto Sans with only the glyphs of `BOARD_LETTERS` (and the font's glyph for a missing
/// letter) to `path`, unless it holds them already, which a file beside it says: the font is cut
/// once, not at every edit of the book.
fn write_board_font(path: &Path) {
    let letters = path.with_extension("letters");
    if path.exists() && std::fs::read_to_string(&letters).is_ok_and(|l| l == BOARD_LETTERS) {
        return;
    }
    let whole = ab_glyph::FontRef::try_from_slice(notosans::REGULAR_TTF).expect("a font");
    let mut glyphs = vec![0];
    for letter in BOARD_LETTERS.chars() {
        match ab_glyph::Font::glyph_id(&whole, letter) {
            ab_glyph::GlyphId(0) => panic!("Noto Sans has no glyph for {letter:?}"),
            ab_glyph::GlyphId(id) => glyphs.push(id),
        }
    }
    glyphs.sort_unstable();
    glyphs.dedup();
    let data = ReadScope::new(notosans::REGULAR_TTF).read::<FontData<'_>>();
    let font = data.expect("Noto Sans is a font").table_provider(0);
    let font = font.expect("Noto Sans is one font");
    let cut = subset(&font, &glyphs, &SubsetProfile::Minimal, CmapTarget::Unicode)
        .expect("allsorts cuts Noto Sans down to the board's letters");
    for (file, bytes) in [(path, &cut[..]), (&letters, BOARD_LETTERS.as_bytes())] {
        std::fs::write(file, bytes)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", file.display()));
    }
}
