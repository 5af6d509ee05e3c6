//! Reading files and folders into [`Source`]s for the commands that take paths (`test`,
//! `diff`). Folders are searched recursively for `*.yaml` / `*.yml`, in name order, so a
//! run reads the same documents in the same order on every machine.

use crate::input::{Diagnostic, Severity, Source, Span};
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

/// Reads one file as a source named by its path. A file that is not text is an error naming
/// where (see [`decode`]).
pub fn read(path: &Path) -> Result<Source, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    decode(&path.display().to_string(), bytes).map_err(|d| d.to_string())
}

/// A file's bytes as the text YAML readers take (go-yaml's encodings): UTF-8, or UTF-16 with
/// a byte order mark (as Windows tools write it). Anything else is an error at the line:column
/// of the first byte that is not text, in the document it falls in; the file is not read.
pub fn decode(name: &str, bytes: Vec<u8>) -> Result<Source, Diagnostic> {
    let utf16 = match bytes.as_slice() {
        // UTF-32's marks start with these too, but go-yaml does not read UTF-32 either: its NULs
        // are then refused as control characters.
        [0xff, 0xfe, rest @ ..] => Some((rest, u16::from_le_bytes as fn([u8; 2]) -> u16)),
        [0xfe, 0xff, rest @ ..] => Some((rest, u16::from_be_bytes as fn([u8; 2]) -> u16)),
        _ => None,
    };
    let (text, bad) = match utf16 {
        Some((rest, unit)) => {
            let units = rest.chunks(2).map(|p| match p {
                [a, b] => unit([*a, *b]),
                // An odd byte count: the last byte is not a whole unit.
                _ => 0xdc00,
            });
            let mut text = String::with_capacity(rest.len() / 2);
            let mut bad = None;
            for c in char::decode_utf16(units) {
                match c {
                    Ok(c) => text.push(c),
                    Err(e) => {
                        bad = Some(format!(
                            "not UTF-16: unpaired surrogate 0x{:04X}",
                            e.unpaired_surrogate()
                        ));
                        break;
                    }
                }
            }
            (text, bad)
        }
        None => match String::from_utf8(bytes) {
            Ok(text) => (text, None),
            Err(e) => {
                let valid = e.utf8_error().valid_up_to();
                let bytes = e.into_bytes();
                let byte = bytes.get(valid).copied().unwrap_or_default();
                let text = String::from_utf8_lossy(&bytes[..valid]).into_owned();
                let message = format!("not UTF-8: byte 0x{byte:02X} is not part of a character");
                (text, Some(message))
            }
        },
    };
    let Some(message) = bad else {
        // The UTF-8 byte order mark is no text either (an example's `# at:` line follows it).
        let text = match text.strip_prefix('\u{feff}') {
            Some(rest) => rest.to_string(),
            None => text,
        };
        return Ok(Source::new(name, text));
    };
    // `text` holds what was read before the bad byte: locate it there.
    let line = text.matches('\n').count() + 1;
    let column = text.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    let document = 1 + text
        .lines()
        .skip_while(|l| l.trim().is_empty() || l.starts_with('#') || l.starts_with('%'))
        .skip(1)
        .filter(|l| *l == "---" || l.starts_with("--- "))
        .count();
    Err(Diagnostic::in_source(
        Severity::Error,
        name,
        document,
        Span {
            line: u32::try_from(line).unwrap_or(u32::MAX),
            column: u32::try_from(column).unwrap_or(u32::MAX),
        },
        format!(
            "{message} (YAML is read as UTF-8, or UTF-16 with a byte order mark); the file is not read"
        ),
    ))
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
