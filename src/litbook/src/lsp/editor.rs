//! The server's side of its connection to the editor: answers, errors and messages to show.

use std::cell::Cell;

use crossbeam_channel::Receiver;
use lsp_server::{
    Connection, ErrorCode, Message, Notification, ProtocolError, Request, RequestId, Response,
};
use lsp_types::MessageType;
use lsp_types::notification::{LogMessage, Notification as _, ShowMessage};
use serde_json::{Value, json};

/// The connection to the editor.
pub struct Editor {
    connection: Connection,
    /// The number of the server's last request to the editor.
    requests_sent: Cell<u32>,
}

impl Editor {
    pub fn new(connection: Connection) -> Editor {
        Editor {
            connection,
            requests_sent: Cell::new(0),
        }
    }

    /// Where the editor's messages arrive.
    pub fn receiver(&self) -> &Receiver<Message> {
        &self.connection.receiver
    }

    /// Whether `request` asks the server to shut down (which is then answered).
    pub fn handle_shutdown(&self, request: &Request) -> Result<bool, ProtocolError> {
        self.connection.handle_shutdown(request)
    }

    pub fn send(&self, message: Message) {
        // An editor that has gone away is noticed when its receiver disconnects.
        let _ = self.connection.sender.send(message);
    }

    pub fn notify(&self, method: &str, params: Value) {
        self.send(Notification::new(method.into(), params).into());
    }

    /// Sends the editor a request of the server's own (its answer is not waited for, and ignored).
    pub fn request(&self, method: &str, params: Value) {
        let n = self.requests_sent.get() + 1;
        self.requests_sent.set(n);
        let id = RequestId::from(format!("litbook/{n}"));
        self.send(Request::new(id, method.into(), params).into());
    }

    pub fn respond(&self, id: RequestId, result: Value) {
        self.send(Response::new_ok(id, result).into());
    }

    pub fn send_error(&self, id: RequestId, code: ErrorCode, message: &str) {
        self.send(Response::new_err(id, code as i32, message.into()).into());
    }

    /// Shows an error in the editor, and writes it to standard error.
    pub fn show_error(&self, message: &str) {
        eprintln!("litbook lsp: {message}");
        self.show_message(MessageType::ERROR, message);
    }

    pub fn show_message(&self, kind: MessageType, message: &str) {
        self.notify(
            ShowMessage::METHOD,
            json!({"type": kind, "message": message}),
        );
    }

    /// Writes to the editor's log, and to standard error.
    pub fn log(&self, message: &str) {
        eprintln!("litbook lsp: {message}");
        self.notify(
            LogMessage::METHOD,
            json!({"type": MessageType::LOG, "message": message}),
        );
    }
}
