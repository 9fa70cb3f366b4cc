//! What each tangled file becomes in the crate, in words for the captions of its root chunks: a
//! module of the library, a program, a test, a benchmark or an example, from the shell that includes
//! it and the manifest's target whose root that shell is.

use std::collections::HashMap;
use std::fs;
use std::path::Path;

use crate::SourceText;
use crate::manifest::Manifest;
use crate::shells::{includes, shell_paths};

/// What each tangled file becomes in the crate in `crate_dir`, by file name: a module of the
/// library (`src/lib.rs` includes it in `mod NAME`), the program, benchmark or other target whose
/// root is the shell that includes it, or an integration test (a file in `tests/`). A crate whose
/// manifest cannot be read has only its library's modules and its tests named (the build reports
/// the manifest).
pub fn root_roles(crate_dir: &Path) -> HashMap<String, String> {
    let targets = Manifest::targets_of(crate_dir);
    let mut roles = HashMap::new();
    for path in shell_paths(crate_dir) {
        let Ok(text) = fs::read_to_string(&path) else {
            continue;
        };
        let relative = path.strip_prefix(crate_dir).unwrap_or(&path);
        let relative = relative.to_string_lossy().replace('\\', "/");
        let shell = SourceText::new(relative.clone(), text);
        for include in includes(&shell) {
            let role = match relative.as_str() {
                "src/lib.rs" => (!include.modules.is_empty()).then(|| {
                    let module = include.modules.join("::");
                    format!("the library's module <code>{module}</code>")
                }),
                _ => targets
                    .iter()
                    .find(|target| target.path == relative)
                    .map(|target| {
                        format!("the {} <code>{}</code>", target.kind.words(), target.name)
                    }),
            };
            let role = role.or_else(|| {
                let test = relative.strip_prefix("tests/")?.strip_suffix(".rs")?;
                Some(format!("the integration test <code>{test}</code>"))
            });
            if let Some(role) = role {
                roles.insert(include.file, role);
            }
        }
    }
    roles
}
