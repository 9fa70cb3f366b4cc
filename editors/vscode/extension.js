// Starts `litbook lsp` (cargo run --package litbook -- lsp) for the Markdown chapters of the
// Chat Noir checkout open in VS Code, and stops it with the editor.
const path = require('path');
const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;

function activate() {
  const folder = (vscode.workspace.workspaceFolders || [])[0];
  if (!folder) {
    return undefined;
  }
  const root = folder.uri.fsPath;
  const manifest = path.join(root, 'Cargo.toml');
  const server = {
    command: 'cargo',
    args: ['run', '--quiet', '--manifest-path', manifest, '--package', 'litbook', '--', 'lsp'],
    options: { cwd: root },
  };
  const chapters = new vscode.RelativePattern(folder, 'book/src/**/*.md');
  client = new LanguageClient('litbook', 'litbook lsp', server, {
    documentSelector: [{ scheme: 'file', language: 'markdown', pattern: chapters }],
  });
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
