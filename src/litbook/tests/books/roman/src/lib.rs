//! Roman numerals, tangled from the book in docs/chapters.

pub mod numerals {
    include!(concat!(env!("OUT_DIR"), "/numerals.rs"));
}
