//! The `chat-noir` program, tangled from the book's chapter "Run, program, run".
include!(concat!(env!("OUT_DIR"), "/main.rs"));
