//! Nothing but a home for `tests/browser.rs`, which checks the woven book in a real browser; a
//! package of its own, so that only that test compiles the DevTools client.
