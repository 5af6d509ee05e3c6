//! Reading files and folders into [`Source`]s for the commands that take paths (`test`,
//! `diff`). Folders are searched recursively for `*.yaml` / `*.yml`, in name order, so a
//! run reads the same documents in the same order on every machine.

use crate::input::Source;
use std::path::{Path, PathBuf};

/// The YAML files under `path` (itself when it is a file), sorted.
pub fn yaml_files(path: &Path) -> Result<Vec<PathBuf>, String> {
    let meta =
        std::fs::metadata(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if !meta.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut out = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            out.extend(yaml_files(&p)?);
        } else if p
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e == "yaml" || e == "yml")
        {
            out.push(p);
        }
    }
    Ok(out)
}

/// Reads one file as a source named by its path.
pub fn read(path: &Path) -> Result<Source, String> {
    std::fs::read_to_string(path)
        .map(|t| Source::new(path.display().to_string(), t))
        .map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// Every YAML file of the given files and folders, read. A folder without YAML files is an
/// error: an empty input would evaluate to "nothing changed" and hide a wrong path.
pub fn read_paths<P: AsRef<Path>>(paths: &[P]) -> Result<Vec<Source>, String> {
    let mut out = Vec::new();
    for p in paths {
        let files = yaml_files(p.as_ref())?;
        if files.is_empty() {
            return Err(format!("{}: no .yaml or .yml file", p.as_ref().display()));
        }
        for f in files {
            out.push(read(&f)?);
        }
    }
    Ok(out)
}
