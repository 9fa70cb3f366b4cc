//! The editor's requests the server still owes an answer: those waiting for rust-analyzer to be ready,
//! and those sent on to it, some in several pieces at once. Every one is answered exactly once: by
//! rust-analyzer, or with an error when rust-analyzer stops, when the editor cancels it, or when no
//! answer came in time.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use lsp_server::{Request, RequestId};
use serde_json::Value;

/// How long the editor waits at most for an answer rust-analyzer was asked for; then it gets an error
/// (ContentModified, which editors take as "ask again") and rust-analyzer is told to stop working on
/// it. Loaded, rust-analyzer answers this book's requests in tens of milliseconds; the limit is for
/// while it loads or restarts, so that the editor always hears back within 2 s.
pub const ANSWER_WITHIN: Duration = Duration::from_millis(1500);

/// A request sent on to rust-analyzer, waiting for its answer.
pub struct Forwarded {
    pub editor_id: RequestId,
    pub method: String,
    /// The tangled file the request was about (empty for a request about no file).
    pub tangled: String,
    /// The chapter the editor asked about (empty for a request about no chapter).
    pub chapter_uri: String,
    /// What the editor's request was about that the answer needs (a call hierarchy item, as
    /// rust-analyzer gave it; the query of a symbol search), or null.
    pub asked: Value,
    since: Instant,
}

/// What is known of a request when it goes to rust-analyzer.
pub struct Sent {
    pub editor_id: RequestId,
    pub method: String,
    pub tangled: String,
    pub chapter_uri: String,
    pub asked: Value,
}

/// A request about a whole chapter, asked of rust-analyzer in pieces all at once (so that its
/// threads share the work): what the answer needs, the pieces' answers so far (tangled file,
/// result), and how many are still owed.
pub struct Gathering {
    pub asked: Value,
    pub answers: Vec<(String, Value)>,
    owed: usize,
}

/// What a cancellation found.
pub enum Cancelled {
    /// The request had not gone to rust-analyzer yet: it is dropped here.
    Waiting(RequestId),
    /// rust-analyzer has it, under these ids (one per piece).
    Forwarded(Vec<i32>),
    /// It was answered already.
    Unknown,
}

/// The id an editor's `$/cancelRequest` names.
pub fn request_id(id: &Value) -> Option<RequestId> {
    match id {
        Value::Number(n) => n
            .as_i64()
            .and_then(|n| i32::try_from(n).ok())
            .map(RequestId::from),
        Value::String(s) => Some(RequestId::from(s.clone())),
        _ => None,
    }
}

#[derive(Default)]
pub struct Pending {
    waiting: Vec<(Request, Instant)>,
    forwarded: HashMap<i32, Forwarded>,
    gathering: HashMap<RequestId, Gathering>,
}

impl Pending {
    /// Keeps a request until rust-analyzer is ready for it.
    pub fn wait(&mut self, request: Request) {
        self.waiting.push((request, Instant::now()));
    }

    /// The waiting requests, to be handled now.
    pub fn take_waiting(&mut self) -> Vec<Request> {
        self.waiting.drain(..).map(|(request, _)| request).collect()
    }

    /// Records a request sent to rust-analyzer as `id`.
    pub fn forwarded(&mut self, id: i32, sent: Sent) {
        let forwarded = Forwarded {
            editor_id: sent.editor_id,
            method: sent.method,
            tangled: sent.tangled,
            chapter_uri: sent.chapter_uri,
            asked: sent.asked,
            since: Instant::now(),
        };
        self.forwarded.insert(id, forwarded);
    }

    /// The request rust-analyzer answered as `id`, if it is still owed.
    pub fn answered(&mut self, id: i32) -> Option<Forwarded> {
        self.forwarded.remove(&id)
    }

    /// Records that the editor's request `editor_id` went to rust-analyzer in `pieces` pieces, each
    /// recorded with [`Pending::forwarded`]; `asked` is what their answers are put together with.
    pub fn gather(&mut self, editor_id: RequestId, asked: Value, pieces: usize) {
        let gathering = Gathering {
            asked,
            answers: Vec::new(),
            owed: pieces,
        };
        self.gathering.insert(editor_id, gathering);
    }

    /// A piece of the editor's request `editor_id` was answered with `result` about `tangled`: the
    /// whole, taken out, once it was the last piece owed.
    pub fn piece_answered(
        &mut self,
        editor_id: &RequestId,
        tangled: String,
        result: Value,
    ) -> Option<Gathering> {
        let gathering = self.gathering.get_mut(editor_id)?;
        gathering.answers.push((tangled, result));
        gathering.owed -= 1;
        if gathering.owed > 0 {
            return None;
        }
        self.gathering.remove(editor_id)
    }

    /// The editor's request `editor_id` is answered now (with an error a piece got): its other
    /// pieces are taken out; the ids rust-analyzer has them under.
    pub fn give_up(&mut self, editor_id: &RequestId) -> Vec<i32> {
        self.gathering.remove(editor_id);
        let ids = self.pieces_of(editor_id);
        for id in &ids {
            self.forwarded.remove(id);
        }
        ids
    }

    /// The ids rust-analyzer has the editor's request `editor_id` under, one per piece.
    fn pieces_of(&self, editor_id: &RequestId) -> Vec<i32> {
        let ids = self.forwarded.iter();
        ids.filter(|(_, f)| f.editor_id == *editor_id)
            .map(|(&id, _)| id)
            .collect()
    }

    /// The editor cancels its request `id`.
    pub fn cancel(&mut self, id: &RequestId) -> Cancelled {
        if let Some(i) = self.waiting.iter().position(|(r, _)| r.id == *id) {
            return Cancelled::Waiting(self.waiting.remove(i).0.id);
        }
        let pieces = self.pieces_of(id);
        if pieces.is_empty() {
            return Cancelled::Unknown;
        }
        Cancelled::Forwarded(pieces)
    }

    /// Every request owed, taken out (each once, however many pieces it went in): rust-analyzer has
    /// stopped, and none will be answered by it.
    pub fn drain(&mut self) -> Vec<RequestId> {
        let waiting = self.waiting.drain(..).map(|(r, _)| r.id);
        let forwarded = self.forwarded.drain().map(|(_, f)| f.editor_id);
        let mut owed: Vec<RequestId> = waiting.chain(forwarded).collect();
        dedup_ids(&mut owed);
        self.gathering.clear();
        owed
    }

    /// The requests owed for longer than [`ANSWER_WITHIN`], taken out: the editor's ids, and the ids
    /// rust-analyzer has the forwarded ones under.
    pub fn overdue(&mut self, now: Instant) -> (Vec<RequestId>, Vec<i32>) {
        let late = |since: &Instant| now.duration_since(*since) >= ANSWER_WITHIN;
        let mut editor_ids = Vec::new();
        self.waiting.retain(|(request, since)| {
            let keep = !late(since);
            if !keep {
                editor_ids.push(request.id.clone());
            }
            keep
        });
        let mut late_forwarded: Vec<RequestId> = self
            .forwarded
            .values()
            .filter(|f| late(&f.since))
            .map(|f| f.editor_id.clone())
            .collect();
        dedup_ids(&mut late_forwarded);
        let mut analyzer_ids = Vec::new();
        for id in late_forwarded {
            analyzer_ids.extend(self.give_up(&id));
            editor_ids.push(id);
        }
        analyzer_ids.sort_unstable();
        (editor_ids, analyzer_ids)
    }

    /// When the oldest request owed falls due, if any is owed.
    pub fn next_due(&self) -> Option<Instant> {
        let waiting = self.waiting.iter().map(|(_, since)| *since);
        let forwarded = self.forwarded.values().map(|f| f.since);
        waiting.chain(forwarded).min().map(|t| t + ANSWER_WITHIN)
    }
}

/// Request ids without repeats (a request asked in pieces is owed once).
fn dedup_ids(ids: &mut Vec<RequestId>) {
    let mut seen = std::collections::HashSet::new();
    ids.retain(|id| seen.insert(id.clone()));
}

/// When to start rust-analyzer again after it stopped: a second after a first stop, twice as long
/// after each further stop within [`RESTART_WINDOW`], and never after [`MAX_RESTARTS`] stops within
/// it (something is wrong that restarting will not mend; the editor is told).
#[derive(Default)]
pub struct Restarts {
    stops: Vec<Instant>,
}

pub const RESTART_WINDOW: Duration = Duration::from_secs(300);
pub const MAX_RESTARTS: usize = 5;

impl Restarts {
    /// Records a stop at `now`; how long to wait before starting again, or `None` for never.
    pub fn stopped(&mut self, now: Instant) -> Option<Duration> {
        self.stops
            .retain(|stop| now.duration_since(*stop) < RESTART_WINDOW);
        self.stops.push(now);
        let recent = self.stops.len();
        (recent <= MAX_RESTARTS).then(|| Duration::from_secs(1 << (recent - 1)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hover(editor_id: i32) -> Sent {
        Sent {
            editor_id: editor_id.into(),
            method: "textDocument/hover".into(),
            tangled: "a.rs".into(),
            chapter_uri: "file:///a.md".into(),
            asked: Value::Null,
        }
    }

    fn request(id: i32) -> Request {
        Request::new(
            id.into(),
            "textDocument/hover".into(),
            serde_json::Value::Null,
        )
    }

    #[test]
    fn every_request_owed_is_taken_out_once() {
        let mut pending = Pending::default();
        pending.wait(request(1));
        pending.forwarded(10, hover(2));
        pending.forwarded(11, hover(3));
        assert!(matches!(pending.cancel(&1.into()), Cancelled::Waiting(id) if id == 1.into()));
        assert!(matches!(
            pending.cancel(&2.into()),
            Cancelled::Forwarded(ids) if ids == [10]
        ));
        assert!(pending.answered(10).is_some());
        assert!(matches!(pending.cancel(&2.into()), Cancelled::Unknown));
        assert_eq!(pending.drain(), vec![RequestId::from(3)]);
        assert!(pending.next_due().is_none());
    }

    fn piece(editor_id: i32) -> Sent {
        Sent {
            method: "textDocument/inlayHint".into(),
            ..hover(editor_id)
        }
    }

    #[test]
    fn a_request_in_pieces_is_put_together_once_every_piece_is_in() {
        let mut pending = Pending::default();
        for id in [10, 11, 12] {
            pending.forwarded(id, piece(2));
        }
        pending.gather(2.into(), Value::Null, 3);
        for id in [10, 11] {
            assert!(pending.answered(id).is_some());
            let owed = pending.piece_answered(&2.into(), "a.rs".into(), Value::Null);
            assert!(owed.is_none());
        }
        assert!(matches!(pending.cancel(&2.into()), Cancelled::Forwarded(ids) if ids == [12]));
        assert!(pending.answered(12).is_some());
        let whole = pending.piece_answered(&2.into(), "a.rs".into(), Value::Null);
        assert_eq!(whole.map(|g| g.answers.len()), Some(3));
        assert!(
            pending
                .piece_answered(&2.into(), "a.rs".into(), Value::Null)
                .is_none()
        );
    }

    #[test]
    fn a_request_in_pieces_is_owed_once_and_given_up_whole() {
        let mut pending = Pending::default();
        for id in [10, 11] {
            pending.forwarded(id, piece(2));
        }
        pending.gather(2.into(), Value::Null, 2);
        assert_eq!(pending.drain(), vec![RequestId::from(2)]);

        for id in [20, 21] {
            pending.forwarded(id, piece(3));
        }
        pending.gather(3.into(), Value::Null, 2);
        let due = pending.next_due().expect("owed");
        let (editor, analyzer) = pending.overdue(due);
        assert_eq!((editor, analyzer), (vec![RequestId::from(3)], vec![20, 21]));
        assert!(
            pending
                .piece_answered(&3.into(), "a.rs".into(), Value::Null)
                .is_none()
        );

        for id in [30, 31] {
            pending.forwarded(id, piece(4));
        }
        pending.gather(4.into(), Value::Null, 2);
        assert!(pending.answered(30).is_some());
        assert_eq!(pending.give_up(&4.into()), vec![31]);
        assert!(pending.next_due().is_none());
    }

    #[test]
    fn requests_fall_due_after_the_answer_time() {
        let mut pending = Pending::default();
        pending.wait(request(1));
        pending.forwarded(10, hover(2));
        let due = pending.next_due().expect("two owed");
        assert_eq!(
            pending.overdue(due - Duration::from_millis(1)),
            (vec![], vec![])
        );
        let (editor, analyzer) = pending.overdue(due + Duration::from_millis(50));
        assert_eq!(editor.len(), 2);
        assert_eq!(analyzer, vec![10]);
        assert!(pending.next_due().is_none());
    }

    #[test]
    fn restarts_back_off_and_give_up() {
        let mut restarts = Restarts::default();
        let start = Instant::now();
        let waits: Vec<Option<Duration>> = (0..6)
            .map(|i| restarts.stopped(start + Duration::from_secs(i)))
            .collect();
        let secs = |s| Some(Duration::from_secs(s));
        assert_eq!(waits, [secs(1), secs(2), secs(4), secs(8), secs(16), None]);
        assert_eq!(restarts.stopped(start + RESTART_WINDOW * 2), secs(1));
    }
}
