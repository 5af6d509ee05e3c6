//! Helpers shared by the integration tests that walk the repository's example files and the
//! bench generators.

#[allow(dead_code)]
#[path = "../../benches/gen/disruption.rs"]
pub mod gen_disruption;
#[allow(dead_code)]
#[path = "../../benches/gen/placement.rs"]
pub mod gen_placement;
#[allow(dead_code)]
#[path = "../../benches/gen/rollout.rs"]
pub mod gen_rollout;

use std::path::{Path, PathBuf};

/// The repository root (the engine crate's parent folder).
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every `.yaml` / `.yml` file under `dir`, recursively, appended to `out`.
pub fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            yaml_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "yaml" || x == "yml") {
            out.push(p);
        }
    }
}
