//! The benchmarks, tangled from the book's chapter "Measuring Speed".
include!(concat!(env!("OUT_DIR"), "/speed.rs"));
