//! The `cargo check`s the server owes the editor. rust-analyzer runs `cargo check` only when the
//! server asks it to (its own checks on save and on loading are turned off), so that every check is
//! one the server knows of. A check is owed after each save, and after each start of rust-analyzer,
//! since the diagnostics of the one before went with it; it is asked for once rust-analyzer is
//! ready (loaded, and not reloading its workspace). A check counts once it has run to its end with
//! rust-analyzer ready all along: one cut short (by a reload of the workspace, which cancels it, or
//! by a crash) is asked for again. Its diagnostics are all in once rust-analyzer has answered a
//! request sent after the check's end, as it publishes a check's diagnostics before it reads the
//! next message.
//!
//! The editor sees each save's check as one piece of work, "cargo check", under a token of its own,
//! from the save to the moment its diagnostics are published: a save made during a check ends the
//! piece of work of the one before, which the new one replaces.

use std::time::{Duration, Instant};

use lsp_types::notification::{Notification as _, Progress as ProgressNotification};
use lsp_types::request::{Request as _, WorkDoneProgressCreate};
use serde_json::{Value, json};

use crate::lsp::editor::Editor;

/// The prefix of the progress tokens under which rust-analyzer reports its checks.
const ANALYZER_CHECK_TOKEN: &str = "rust-analyzer/flycheck/";

/// How long rust-analyzer may take to begin a check it was asked for: it begins one within a
/// tenth of a second once it has read the request; one it has not begun by then it will not begin
/// (it could not start `cargo`, and says why in its status).
pub const BEGIN_WITHIN: Duration = Duration::from_secs(60);

/// Whether rust-analyzer reports a check under `token`.
pub fn is_check_token(token: &Value) -> bool {
    token
        .as_str()
        .is_some_and(|token| token.starts_with(ANALYZER_CHECK_TOKEN))
}

/// A check asked of rust-analyzer that it has not begun.
#[derive(Clone, Copy)]
struct Asked {
    /// The last save it covers.
    covers: u64,
    /// When it was asked for.
    at: Instant,
    /// Whether to ask again once rust-analyzer is ready: it reloaded its workspace since, and may
    /// have dropped the request. (The check it then begins is taken to cover no more than this
    /// one asked for: a later save then needs a check of its own.)
    again: bool,
}

/// A check rust-analyzer is running.
struct Running {
    /// The last save it covers: it began after rust-analyzer was asked for it, and so after the
    /// mirror had every change up to that save.
    covers: u64,
    /// Whether it may have been cut short: rust-analyzer reloaded its workspace while it ran.
    disturbed: bool,
}

/// What the editor is shown of the checks.
struct Shown {
    /// Whether the editor shows work done progress.
    enabled: bool,
    /// How many tokens the server has made; the next one's number.
    made: u64,
    /// The token of the piece of work going on in the editor, if one is.
    going: Option<String>,
}

pub struct Checks {
    /// The saves so far, each numbered, rust-analyzer's starts counted as saves.
    wanted: u64,
    /// The last save a whole check covered.
    done: u64,
    asked: Option<Asked>,
    running: Option<Running>,
    /// The request sent after a whole check ended, and the save that check covers: once it is
    /// answered, the check's diagnostics are all in.
    settling: Option<(i32, u64)>,
    shown: Shown,
}

impl Checks {
    pub fn new(editor_capabilities: &Value) -> Checks {
        Checks {
            wanted: 0,
            done: 0,
            asked: None,
            running: None,
            settling: None,
            shown: Shown {
                enabled: editor_capabilities["window"]["workDoneProgress"] == true,
                made: 0,
                going: None,
            },
        }
    }

    /// A chapter was saved, or rust-analyzer (re)started: a check is owed, and the editor is shown
    /// a new piece of work for it.
    pub fn want(&mut self, editor: &Editor) {
        self.wanted += 1;
        self.end_shown("superseded by a newer check", editor);
        self.begin_shown(editor);
    }

    /// Whether to ask rust-analyzer for a check now, given whether it is `ready`; if so, the check
    /// is counted as asked for.
    pub fn ask_now(&mut self, ready: bool) -> bool {
        if !ready {
            return false;
        }
        if let Some(asked) = &mut self.asked {
            if !asked.again {
                return false;
            }
            asked.again = false;
            asked.at = Instant::now();
            return true;
        }
        let running = (self.running.as_ref())
            .filter(|running| !running.disturbed)
            .map_or(0, |running| running.covers);
        let settling = self.settling.map_or(0, |(_, covers)| covers);
        if self.wanted <= self.done.max(running).max(settling) {
            return false;
        }
        self.asked = Some(Asked {
            covers: self.wanted,
            at: Instant::now(),
            again: false,
        });
        true
    }

    /// rust-analyzer reports its check's work (begun, going on or ended): the save the check
    /// covers when it ended whole, so that a request is sent to learn when its diagnostics are all
    /// in (see [`Checks::settle`]).
    pub fn report(&mut self, params: &Value, editor: &Editor) -> Option<u64> {
        let value = &params["value"];
        match value["kind"].as_str() {
            Some("begin") => {
                let covers = self.asked.take().map_or(0, |asked| asked.covers);
                self.running = Some(Running {
                    covers,
                    disturbed: false,
                });
                None
            }
            Some("end") => {
                let running = self.running.take()?;
                (!running.disturbed && running.covers > self.done).then_some(running.covers)
            }
            _ => {
                if let Some(message) = value["message"].as_str() {
                    self.report_shown(message, editor);
                }
                None
            }
        }
    }

    /// A whole check covering the save `covers` ended; `id` is the request sent after its end.
    pub fn settle(&mut self, id: i32, covers: u64) {
        self.settling = Some((id, covers));
    }

    /// rust-analyzer answered the request `id`: whether it was the one sent after a whole check,
    /// whose diagnostics are then all in; the editor's work ends if no newer save waits.
    pub fn answered(&mut self, id: i32, editor: &Editor) -> bool {
        let Some((settling, covers)) = self.settling else {
            return false;
        };
        if settling != id {
            return false;
        }
        self.settling = None;
        self.done = self.done.max(covers);
        if self.done >= self.wanted {
            self.end_shown("done", editor);
        }
        true
    }

    /// rust-analyzer is busy loading or reloading its workspace: a check running now may be cut
    /// short, and a check asked for may never begin; both are asked for again once it is ready.
    pub fn disturbed(&mut self) {
        if let Some(running) = &mut self.running {
            running.disturbed = true;
        }
        if let Some(asked) = &mut self.asked {
            asked.again = true;
        }
    }

    /// rust-analyzer stopped, and its check with it: the editor's work ends until it is started
    /// again, which owes a check of its own.
    pub fn stopped(&mut self, editor: &Editor) {
        self.asked = None;
        self.running = None;
        self.settling = None;
        self.end_shown("rust-analyzer stopped", editor);
    }

    /// rust-analyzer will not be started again: no check is owed any more.
    pub fn given_up(&mut self) {
        self.done = self.wanted;
    }

    /// When a check asked for is to have begun (none while it waits for rust-analyzer to be ready
    /// to be asked again).
    pub fn begin_due(&self) -> Option<Instant> {
        let asked = self.asked.filter(|asked| !asked.again)?;
        Some(asked.at + BEGIN_WITHIN)
    }

    /// A check asked for did not begin in time: it is not asked for again until the next save, and
    /// the editor is told.
    pub fn not_begun(&mut self, editor: &Editor) {
        let Some(asked) = self.asked.take() else {
            return;
        };
        self.done = self.done.max(asked.covers);
        self.end_shown("rust-analyzer did not start cargo check", editor);
        editor.show_error(
            "rust-analyzer did not start cargo check (its status says why); save again to retry",
        );
    }

    fn begin_shown(&mut self, editor: &Editor) {
        if !self.shown.enabled {
            return;
        }
        self.shown.made += 1;
        let token = format!("litbook/check/{}", self.shown.made);
        editor.request(WorkDoneProgressCreate::METHOD, json!({"token": token}));
        let begin = json!({"kind": "begin", "title": "cargo check", "cancellable": false});
        editor.notify(
            ProgressNotification::METHOD,
            json!({"token": token, "value": begin}),
        );
        self.shown.going = Some(token);
    }

    fn report_shown(&self, message: &str, editor: &Editor) {
        if let Some(token) = &self.shown.going {
            let report = json!({"kind": "report", "message": message});
            editor.notify(
                ProgressNotification::METHOD,
                json!({"token": token, "value": report}),
            );
        }
    }

    fn end_shown(&mut self, message: &str, editor: &Editor) {
        if let Some(token) = self.shown.going.take() {
            let end = json!({"kind": "end", "message": message});
            editor.notify(
                ProgressNotification::METHOD,
                json!({"token": token, "value": end}),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use lsp_server::{Connection, Message};

    use super::*;

    /// The server's side of a connection in memory, and the editor's.
    fn connection() -> (Editor, Connection) {
        let (server, editor) = Connection::memory();
        (Editor::new(server), editor)
    }

    fn checks() -> Checks {
        Checks::new(&json!({"window": {"workDoneProgress": true}}))
    }

    /// rust-analyzer's report of its check's work of `kind`.
    fn check(kind: &str) -> Value {
        json!({"token": "rust-analyzer/flycheck/0", "value": {"kind": kind}})
    }

    /// The work the editor was shown since last asked: each begin, and each end with its message.
    fn shown(editor: &Connection) -> Vec<String> {
        let progress = editor
            .receiver
            .try_iter()
            .filter_map(|message| match message {
                Message::Notification(n) if n.method == "$/progress" => Some(n.params),
                _ => None,
            });
        progress
            .map(|params| {
                let value = &params["value"];
                let kind = value["kind"].as_str().unwrap_or_default();
                match value["message"].as_str() {
                    Some(message) => format!("{kind}: {message}"),
                    None => kind.to_string(),
                }
            })
            .collect()
    }

    #[test]
    fn a_check_is_asked_for_once_ready_and_its_work_ends_once_its_diagnostics_are_in() {
        let (server, editor) = connection();
        let mut checks = checks();
        checks.want(&server);
        assert!(!checks.ask_now(false), "not before rust-analyzer is ready");
        assert!(checks.ask_now(true));
        assert!(!checks.ask_now(true), "asked for once");
        assert_eq!(checks.report(&check("begin"), &server), None);
        assert_eq!(checks.report(&check("end"), &server), Some(1));
        checks.settle(7, 1);
        assert!(!checks.answered(8, &server), "another request's answer");
        assert!(checks.answered(7, &server));
        assert_eq!(shown(&editor), ["begin", "end: done"]);
        assert!(!checks.ask_now(true), "nothing more is owed");
    }

    #[test]
    fn a_check_that_ran_while_rust_analyzer_reloaded_is_asked_for_again() {
        let (server, _editor) = connection();
        let mut checks = checks();
        checks.want(&server);
        assert!(checks.ask_now(true));
        checks.report(&check("begin"), &server);
        checks.disturbed();
        assert_eq!(
            checks.report(&check("end"), &server),
            None,
            "maybe cut short"
        );
        assert!(!checks.ask_now(false));
        assert!(checks.ask_now(true));
        checks.report(&check("begin"), &server);
        assert_eq!(checks.report(&check("end"), &server), Some(1));
    }

    #[test]
    fn a_check_asked_for_before_a_reload_is_asked_for_again_and_not_awaited_meanwhile() {
        let (server, _editor) = connection();
        let mut checks = checks();
        checks.want(&server);
        assert!(checks.ask_now(true));
        assert!(checks.begin_due().is_some());
        checks.disturbed();
        assert_eq!(checks.begin_due(), None);
        assert!(checks.ask_now(true));
        assert!(checks.begin_due().is_some());
    }

    #[test]
    fn a_save_during_a_check_asks_for_another_and_the_work_ends_with_the_newer_one() {
        let (server, editor) = connection();
        let mut checks = checks();
        checks.want(&server);
        assert!(checks.ask_now(true));
        checks.report(&check("begin"), &server);
        checks.want(&server);
        assert!(checks.ask_now(true), "a save during a check");
        assert_eq!(checks.report(&check("end"), &server), Some(1));
        checks.settle(1, 1);
        assert!(checks.answered(1, &server));
        checks.report(&check("begin"), &server);
        assert_eq!(checks.report(&check("end"), &server), Some(2));
        checks.settle(2, 2);
        assert!(checks.answered(2, &server));
        let superseded = "end: superseded by a newer check";
        assert_eq!(shown(&editor), ["begin", superseded, "begin", "end: done"]);
    }

    #[test]
    fn a_stop_ends_the_editor_s_work_and_the_next_start_owes_a_check() {
        let (server, editor) = connection();
        let mut checks = checks();
        checks.want(&server);
        assert!(checks.ask_now(true));
        checks.report(&check("begin"), &server);
        checks.stopped(&server);
        assert_eq!(checks.report(&check("end"), &server), None);
        checks.want(&server);
        assert!(checks.ask_now(true));
        let stopped = "end: rust-analyzer stopped";
        assert_eq!(shown(&editor), ["begin", stopped, "begin"]);
    }
}
