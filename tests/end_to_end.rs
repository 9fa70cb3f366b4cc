//! The game played in a real window, tangled from the book's chapter "Played as a Player Would".
include!(concat!(env!("OUT_DIR"), "/end_to_end.rs"));
