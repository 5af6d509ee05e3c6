//! Reading files and folders into [`Source`]s for the commands that take paths (`test`,
//! `diff`). Folders are searched recursively for `*.yaml` / `*.yml`, in name order, so a
//! run reads the same documents in the same order on every machine.

use crate::input::documents::is_marker;
use crate::input::documents::{Read, MAX_INPUT_BYTES};
use crate::input::json::looks_like_json;
use crate::input::{Diagnostic, Input, Severity, Source, Span};
use crate::parallel;
use crate::session::{append, frame_is_list, read_item, Form, Kind, Planned, Session};
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

/// Every YAML file of the given files and folders read into one input, in order, as
/// [`Input::parse`] reads their texts; a file that is one `kind: List` is read item by item
/// ([`read_list`]). A folder without YAML files is an error: an empty input would evaluate to
/// "nothing changed" and hide a wrong path.
pub fn read_paths<P: AsRef<Path>>(paths: &[P]) -> Result<Input, String> {
    let mut files = Vec::new();
    for p in paths {
        let found = yaml_files(p.as_ref())?;
        if found.is_empty() {
            return Err(format!("{}: no .yaml or .yml file", p.as_ref().display()));
        }
        files.extend(found);
    }
    let itemwise = within_limit(files.iter().map(PathBuf::as_path));
    let mut sources = Vec::new();
    for f in files {
        let name = f.display().to_string();
        match itemwise.then(|| read_items(&name, &f)).flatten() {
            Some((items, _)) => sources.push(items),
            None => sources.push(Read::Text(read(&f)?)),
        }
    }
    Ok(Input::parse_read(sources))
}

/// Whether files of these paths together are within [`MAX_INPUT_BYTES`]; past it every file is
/// read whole, and the whole reader reports the limit.
fn within_limit<'a>(paths: impl Iterator<Item = &'a Path>) -> bool {
    let size = paths
        .map(|f| std::fs::metadata(f).map_or(0, |m| m.len()))
        .fold(0, u64::saturating_add);
    size <= MAX_INPUT_BYTES as u64
}

/// A file read item by item ([`read_list`]), as a source for [`Input::parse_read`], with its
/// list's frame.
fn read_items(name: &str, path: &Path) -> Option<(Read, String)> {
    // Only a regular file can be read again whole when it is no list: a pipe
    // (`<(kubectl get …)`, `/dev/stdin`) would then be empty.
    let bytes = std::fs::metadata(path).ok().filter(|m| m.is_file())?.len();
    let (read, frame) = read_list(name, path)?;
    let items = Read::Items {
        name: name.to_string(),
        bytes: usize::try_from(bytes).unwrap_or(usize::MAX),
        read,
    };
    Some((items, frame))
}

/// The command line's files (`-` is standard input) read into one input: what [`Input::parse`]
/// gives for their texts, in order, with the files that are not text refused at the end. A
/// file that is one `kind: List` is read item by item ([`read_list`]). Also returns each
/// file's leading comment lines (where an example's `# at:` line is).
pub fn read_files(files: &[String]) -> Result<(Input, Vec<Source>), String> {
    use std::io::Read as _;
    // Past the size limit (or with standard input, of unknown size) every file is read whole,
    // and the whole reader reports the limit.
    let stdin = files.iter().any(|f| f == "-");
    let itemwise = !stdin && within_limit(files.iter().map(Path::new));
    let mut read = Vec::new();
    let mut texts = Vec::new();
    let mut refused = Vec::new();
    for f in files {
        if let Some((items, frame)) = itemwise.then(|| read_items(f, Path::new(f))).flatten() {
            read.push(items);
            texts.push(Source::new(f, leading_comments(&frame)));
            continue;
        }
        let bytes = if f == "-" {
            let mut b = Vec::new();
            std::io::stdin().read_to_end(&mut b).map(|_| b)
        } else {
            std::fs::read(f)
        }
        .map_err(|e| format!("cannot read {f}: {e}"))?;
        match decode(f, bytes) {
            Ok(s) => {
                texts.push(Source::new(f, leading_comments(&s.text)));
                read.push(Read::Text(s));
            }
            Err(d) => refused.push(d),
        }
    }
    let mut input = Input::parse_read(read);
    for d in refused {
        input.diagnose(d);
    }
    Ok((input, texts))
}

/// The comment lines a text starts with.
fn leading_comments(text: &str) -> String {
    text.split_inclusive('\n')
        .take_while(|l| l.starts_with('#'))
        .collect()
}

/// Reads a file that is one `kind: List` as kubectl prints it (`-o yaml`: items at column 0;
/// `-o json`: each item on lines of its own) item by item, as the playground's session reads
/// such a list, so that only a few items' text is held at a time: reading a dump then takes
/// the memory of its tree, not of its text as well (the text of a 50,000-cluster dump is
/// 138 MB beside a 300 MB tree). The input is what [`Input::parse`] gives for the file.
///
/// Returns the input and the list's frame (the file without its items, whose leading lines
/// are the file's). `None` when the file is not such a list, or anything in it does not read
/// cleanly on its own: it is then to be read whole, which reports what is wrong.
pub fn read_list(name: &str, path: &Path) -> Option<(Input, String)> {
    read_list_from(name, std::fs::File::open(path).ok()?)
}

/// [`read_list`] from any reader.
pub(crate) fn read_list_from(name: &str, r: impl std::io::Read) -> Option<(Input, String)> {
    let mut list = List {
        name,
        w: Window {
            r,
            buf: Vec::new(),
            scan: 0,
            mark: 0,
            number: 0,
            eof: false,
        },
        frame: String::new(),
        input: Input::default(),
        pending: Vec::new(),
        pending_bytes: 0,
    };
    // Blank lines may come first; the first other character tells JSON (as the whole reader
    // tells it) from YAML.
    let (json, mut l) = loop {
        let l = list.head_line()?;
        // A byte order mark is stripped when the file is read whole: read such a file whole.
        if l.starts_with('\u{feff}') {
            return None;
        }
        // `#` first is a YAML comment, and no JSON.
        if !l.trim_start_matches([' ', '\t', '\r', '\n']).is_empty() {
            break (looks_like_json(&l), l);
        }
    };
    // The frame up to the line that opens the items.
    loop {
        let line = l.trim_end_matches('\n');
        if json && line.trim_start_matches(' ') == "\"items\": [" {
            break;
        }
        if !json && line == "items:" {
            break;
        }
        // Directives apply to the whole document: such a list is read whole.
        if !json && l.starts_with('%') {
            return None;
        }
        l = list.head_line()?;
    }
    if json {
        // The frame has `null` for the array.
        let open = list.frame.len() - (l.len() - l.trim_end_matches('\n').len()) - 1;
        list.frame.truncate(open);
        list.frame.push_str("null");
        list.json_items()?;
    } else {
        list.yaml_items()?;
    }
    list.flush()?;
    let List { frame, input, .. } = list;
    (frame_is_list(&frame, 1) && Session::pieces_hold(&input)).then_some((input, frame))
}

/// How much of a file is read at a time.
const READ: u64 = 1 << 20;

/// How much item text is gathered before it is read, on every core: a few hundred items of a
/// kubectl dump, so that each thread has enough to do and the text held stays small. Tests
/// read several batches from small lists.
const BATCH: usize = if cfg!(test) { 512 << 10 } else { 4 << 20 };

/// A file read a block at a time and taken line by line, keeping the bytes from `mark` on
/// (the item being read) and dropping the rest as more is read.
struct Window<R> {
    r: R,
    buf: Vec<u8>,
    /// Where the next line starts in `buf`.
    scan: usize,
    /// Where the bytes still wanted start in `buf`.
    mark: usize,
    /// 1-based number of the last line taken.
    number: u32,
    eof: bool,
}

impl<R: std::io::Read> Window<R> {
    /// The next line (with its line feed) as a range of `buf`, and its number; `Some(None)` at
    /// the end of the file. `None` for what the whole reader reads otherwise: a document
    /// marker (more than one document), and for a read error.
    fn next(&mut self) -> Option<Option<(u32, std::ops::Range<usize>)>> {
        // Where the search goes on: bytes searched already are not searched again (a line of
        // 100 MB is read in a hundred blocks).
        let mut from = self.scan;
        let end = loop {
            if let Some(i) = memchr::memchr(b'\n', &self.buf[from..]) {
                break from + i + 1;
            }
            if self.eof {
                if self.scan == self.buf.len() {
                    return Some(None);
                }
                break self.buf.len();
            }
            from = self.buf.len() - self.mark;
            self.buf.drain(..self.mark);
            self.scan -= self.mark;
            self.mark = 0;
            let read = std::io::Read::read_to_end(
                &mut std::io::Read::take(&mut self.r, READ),
                &mut self.buf,
            )
            .ok()?;
            self.eof = read == 0;
        };
        let start = std::mem::replace(&mut self.scan, end);
        self.number = self.number.checked_add(1)?;
        let line = &self.buf[..end];
        if is_marker(line, start, b"---", false) || is_marker(line, start, b"...", true) {
            return None;
        }
        Some(Some((self.number, start..end)))
    }

    /// The text of a range of `buf` (`None` when it is not UTF-8).
    fn text(&self, range: std::ops::Range<usize>) -> Option<&str> {
        std::str::from_utf8(self.buf.get(range)?).ok()
    }
}

/// A list file being read: its items into `input`, the rest into `frame`.
struct List<'n, R> {
    name: &'n str,
    w: Window<R>,
    frame: String,
    input: Input,
    /// Items found and not read yet: their text, first line and place in the list.
    pending: Vec<(String, u32, Kind)>,
    /// The length of their texts.
    pending_bytes: usize,
}

impl<R: std::io::Read> List<'_, R> {
    /// The next line, added to the frame.
    fn head_line(&mut self) -> Option<String> {
        let (_, l) = self.w.next()??;
        let l = self.w.text(l)?.to_string();
        self.frame.push_str(&l);
        self.w.mark = self.w.scan;
        Some(l)
    }

    /// The rest of the file, added to the frame.
    fn rest(&mut self) -> Option<()> {
        self.w.mark = self.w.scan;
        while let Some((_, l)) = self.w.next()? {
            self.frame.push_str(self.w.text(l)?);
        }
        Some(())
    }

    /// Takes `range` of the window, an item of the list that is the file's first document, to
    /// be read with the items around it; `None` when it is not UTF-8.
    fn item(&mut self, range: std::ops::Range<usize>, first_line: u32, kind: Kind) -> Option<()> {
        let text = self.w.text(range)?.to_string();
        self.pending_bytes += text.len();
        self.pending.push((text, first_line, kind));
        if self.pending_bytes >= BATCH {
            self.flush()?;
        }
        Some(())
    }

    /// Reads the pending items into `input`, in order, on every core (items read independently
    /// of each other); `None` when one does not read cleanly on its own.
    fn flush(&mut self) -> Option<()> {
        let pending = std::mem::take(&mut self.pending);
        self.pending_bytes = 0;
        let name = self.name;
        let read = parallel::map(&pending, |(text, first_line, kind)| {
            let planned = Planned {
                text,
                start: 0,
                first_line: *first_line,
                kind: *kind,
            };
            read_item(name, 1, &planned)
        });
        for input in read {
            append(&mut self.input, input?);
        }
        Some(())
    }

    /// The items of a block YAML list, split as the session splits them: an item runs from its
    /// `- ` line at column 0 to the next one, or to the first line at column 0 that is none of
    /// an item's (`kind: List`, `metadata:`), where the rest of the frame starts.
    fn yaml_items(&mut self) -> Option<()> {
        let is_dash = |l: &[u8]| l.starts_with(b"- ") || l.trim_ascii_end() == b"-";
        let (mut item_line, first) = self.w.next()??;
        if !is_dash(&self.w.buf[first.clone()]) {
            return None;
        }
        self.w.mark = first.start;
        let mut count = 0;
        // Where the item read so far ends.
        let mut end = first.end;
        let mut tail = None;
        while let Some((n, range)) = self.w.next()? {
            let l = &self.w.buf[range.clone()];
            // Most lines of an item are indented: inside, and no item's start.
            if l.first() == Some(&b' ') {
                end = range.end;
                continue;
            }
            let dash = is_dash(l);
            if !(dash
                || l.starts_with(b"\t")
                || l.starts_with(b"#")
                || self.w.text(range.clone())?.trim().is_empty())
            {
                tail = Some(range);
                break;
            }
            if dash {
                let start = self.w.mark;
                self.item(start..range.start, item_line, Kind::Item(count, Form::Yaml))?;
                count += 1;
                (self.w.mark, item_line) = (range.start, n);
            }
            end = range.end;
        }
        let start = self.w.mark;
        self.item(start..end, item_line, Kind::Item(count, Form::Yaml))?;
        if let Some(tail) = tail {
            let tail = self.w.text(tail)?.to_string();
            self.frame.push_str(&tail);
        }
        self.rest()
    }

    /// The items of a JSON list as `kubectl get -o json` prints it, split as the session
    /// splits them: the array opened at the end of the last line (`"items": [`), each item
    /// runs from a `{` line to a `}` or `},` line at one indentation, and the array closes
    /// on the next line, where the rest of the frame starts.
    fn json_items(&mut self) -> Option<()> {
        let mut indent = None;
        let mut item: Option<u32> = None;
        let mut last = false;
        let mut count = 0;
        loop {
            let (n, range) = self.w.next()??;
            let l = &self.w.buf[range.clone()];
            // Inside an item, only a line as long as its closing one (`}`, `},`, a line feed)
            // can close it: the others are passed over without looking into them.
            if let (Some(_), Some(i)) = (item, indent) {
                if !(i + 1..=i + 3).contains(&l.len()) {
                    continue;
                }
            }
            // The indentation (spaces) and the rest of the line, without its line feed.
            let pad = l.iter().take_while(|&&c| c == b' ').count();
            let body = l[pad..].strip_suffix(b"\n").unwrap_or(&l[pad..]);
            match item {
                Some(first_line) => {
                    if Some(pad) == indent && (body == b"}" || body == b"},") {
                        last = body == b"}";
                        let start = self.w.mark;
                        let kind = Kind::Item(count, Form::Json { last });
                        self.item(start..range.end, first_line, kind)?;
                        count += 1;
                        item = None;
                    }
                }
                None if !last && body == b"{" && indent.is_none_or(|i| i == pad) => {
                    indent = Some(pad);
                    item = Some(n);
                    self.w.mark = range.start;
                }
                None if last && body.starts_with(b"]") => {
                    let tail = self.w.text(range.start + pad + 1..range.end)?.to_string();
                    self.frame.push_str(&tail);
                    break;
                }
                None => return None,
            }
        }
        self.rest()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corpus(path: &str) -> String {
        let file = format!("{}/tests/corpus/{path}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{file}: {e}"))
    }

    /// `text` read item by item, when it is: then it must be what reading it whole gives,
    /// documents, errors (with their line:column) and all.
    fn itemwise(name: &str, text: &str) -> Option<(Input, String)> {
        let read = read_list_from(name, text.as_bytes());
        if let Some((input, _)) = &read {
            assert_eq!(
                input,
                &Input::parse(&[Source::new(name, text)]),
                "{name} read item by item differs from read whole:\n{text}"
            );
        }
        read
    }

    const LISTS: [&str; 4] = [
        "kubectl/memberclusters.yaml",
        "kubectl/memberclusters.json",
        "kubectl/bindings.yaml",
        "kubectl/crp-list.yaml",
    ];

    #[test]
    fn kubectl_lists_are_read_item_by_item_as_they_read_whole() {
        for path in LISTS {
            let text = corpus(path);
            let Some((input, frame)) = itemwise(path, &text) else {
                panic!("{path} is read item by item");
            };
            assert!(!input.documents.is_empty(), "{path}");
            assert!(
                input
                    .documents
                    .iter()
                    .enumerate()
                    .all(|(i, d)| d.item == Some(i)),
                "{path}: the items in order"
            );
            // The frame is the list without its items.
            assert!(frame.contains("kind") && frame.contains("List"), "{frame}");
            assert!(frame.len() < 300, "{path}: {frame}");
        }
    }

    /// A list of hundreds of items is read in batches, each on every core: the documents and
    /// the errors (an unknown kind, a bad quantity) come in the order reading it whole gives.
    #[test]
    fn large_lists_read_on_every_core_as_they_read_whole() {
        let yaml = corpus("kubectl/memberclusters.yaml");
        let lines: Vec<&str> = yaml.lines().collect();
        let (head, items, tail) = (&lines[..2], &lines[2..545], &lines[545..]);
        let mut big = head.join("\n") + "\n";
        for i in 0..300 {
            // Copy 150 has copy 149's names: the fleet takes the first of each.
            let prefix = if i == 150 { 149 } else { i };
            let copy = items
                .join("\n")
                .replace("name: ", &format!("name: c{prefix}-"));
            let copy = match i {
                100 => copy.replacen("kind: MemberCluster", "kind: MemberClustr", 1),
                250 => copy.replacen("cpu: ", "cpu: x", 1),
                _ => copy,
            };
            big.push_str(&copy);
            big.push('\n');
        }
        big.push_str(&(tail.join("\n") + "\n"));
        assert!(big.len() > 4 * BATCH, "{}", big.len());

        let json = corpus("kubectl/memberclusters.json");
        let mut value: serde_json::Value = serde_json::from_str(&json).expect("corpus JSON");
        let one = value["items"].as_array().cloned().unwrap_or_default();
        let many: Vec<serde_json::Value> = (0..300).flat_map(|_| one.clone()).collect();
        value["items"] = serde_json::Value::Array(many);
        value["items"][301]["kind"] = "MemberClustr".into();
        let big_json = serde_json::to_string_pretty(&value).expect("JSON") + "\n";

        for (name, text) in [("big.yaml", &big), ("big.json", &big_json)] {
            let Some((input, _)) = itemwise(name, text) else {
                panic!("{name} is read item by item");
            };
            assert_eq!(input.documents.len(), 2099, "{name}");
            let errors: Vec<String> = input.diagnostics.iter().map(|d| d.to_string()).collect();
            assert_eq!(errors.len(), 1, "{name}: {errors:?}");
            assert!(
                errors[0].contains("unknown kind \"MemberClustr\""),
                "{errors:?}"
            );
        }
        // The fleet decoded on every core is the fleet decoded one cluster after the other.
        let input = read_list_from("big.yaml", big.as_bytes()).map(|r| r.0);
        let input = input.unwrap_or_default();
        let at = crate::PlaceOptions::at(chrono::DateTime::UNIX_EPOCH);
        let one_by_one = crate::placement::prepare_fleet(&input, at.at, |_, doc| {
            crate::placement::decode_member(doc, &at)
        });
        assert_eq!(
            format!("{:?}", crate::placement::prepare(&input, &at).fleet),
            format!("{:?}", one_by_one.0.fleet)
        );
        // The quantity's error comes when the fleet is decoded (on every core too), at its
        // line:column.
        let report = crate::place_input(&input, &at);
        let errors: Vec<String> = report.errors.iter().map(|d| d.to_string()).collect();
        assert_eq!(errors.len(), 9, "{errors:?}");
        assert_eq!(
            errors[0],
            "error: big.yaml:54304:9: document 1 item 700 (MemberClustr c100-bravelion), kind: unknown kind \"MemberClustr\"; did you mean \"MemberCluster\"?"
        );
        // Each repeated name at its own item, in order.
        assert_eq!(
            errors[1],
            "error: big.yaml:81468:11: document 1 item 1050 (MemberCluster c149-bravelion), metadata.name: duplicate MemberCluster \"c149-bravelion\": only the first one is used"
        );
        for (k, e) in errors[1..8].iter().enumerate() {
            let item = format!("item {} (MemberCluster c149-", 1050 + k);
            assert!(e.contains(&item) && e.contains("duplicate"), "{e}");
        }
        assert_eq!(
            errors[8],
            "error: big.yaml:135828:14: document 1 item 1750 (MemberCluster c250-bravelion), status.resourceUsage.allocatable.cpu: \"x3860m\" is not a quantity: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
        );
    }

    /// Items with errors read on their own as they read in the list: the same errors at the
    /// same places; so do comments and blank lines between items.
    #[test]
    fn errors_comments_and_blank_lines_in_items_read_as_in_the_whole_list() {
        let list = corpus("kubectl/memberclusters.yaml");
        // Between the first item and the second, and the second and the third; and an item
        // that is no manifest.
        let at = list.find("\n- apiVersion").unwrap_or_default() + 1;
        let rest = list[at..]
            .replacen("\n- apiVersion", "\n# a comment\n\n- apiVersion", 2)
            .replacen("\n- apiVersion", "\n- 42\n- apiVersion", 1);
        let text = format!("{}{rest}", &list[..at]);
        assert_eq!(text.matches("# a comment").count(), 2);
        let Some((input, _)) = itemwise("m.yaml", &text) else {
            panic!("read item by item");
        };
        let errors: Vec<String> = input.diagnostics.iter().map(|d| d.to_string()).collect();
        assert_eq!(
            errors,
            ["error: m.yaml:89:3: document 1 item 1: a manifest must be a mapping with apiVersion, kind and metadata"]
        );
        let json = corpus("kubectl/memberclusters.json").replacen("\"name\":", "\"nam\":", 1);
        assert!(itemwise("m.json", &json).is_some());
    }

    /// Whatever is not a list as kubectl prints it, or does not read cleanly item by item, is
    /// left to the whole reader: cut anywhere, or with a line added anywhere, a list is read
    /// item by item only where that gives what reading it whole gives.
    #[test]
    fn what_does_not_read_item_by_item_is_left_to_the_whole_reader() {
        let extras = [
            "---\n",
            "...\n",
            "%YAML 1.1\n",
            "# c\n",
            "\n",
            "\t\n",
            "- \n",
            "-\n",
            "x: 1\n",
            "  y: [\n",
            "items:\n",
            "]\n",
            "{\n",
            "},\n",
            "}\n",
            "\u{feff}",
            "\r\n",
            "  - a\n",
            "- apiVersion: v1\n  kind: List\n  items: []\n",
            "kind: List\n",
        ];
        let (mut itemwise_read, mut left) = (0, 0);
        for path in [
            "kubectl/memberclusters.yaml",
            "kubectl/memberclusters.json",
            "kubectl/bindings.yaml",
        ] {
            let text = corpus(path);
            let mut cuts: Vec<usize> = (0..text.len()).step_by(97).collect();
            cuts.push(text.len() - 1);
            for cut in cuts.into_iter().filter(|&c| text.is_char_boundary(c)) {
                match itemwise(path, &text[..cut]) {
                    Some(_) => itemwise_read += 1,
                    None => left += 1,
                }
            }
            let lines: Vec<&str> = text.split_inclusive('\n').collect();
            for extra in extras {
                for at in (0..=lines.len()).step_by(7) {
                    let t = format!("{}{extra}{}", lines[..at].concat(), lines[at..].concat());
                    match itemwise(path, &t) {
                        Some(_) => itemwise_read += 1,
                        None => left += 1,
                    }
                }
            }
        }
        // Both ways are taken.
        assert!(itemwise_read > 100 && left > 100, "{itemwise_read} {left}");
    }

    #[test]
    fn documents_that_are_not_one_list_are_left_to_the_whole_reader() {
        let list = corpus("kubectl/memberclusters.yaml");
        for text in [
            String::new(),
            "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n".to_string(),
            format!("{list}---\n{list}"),
            format!("apiVersion: v1\nkind: Namespace\n---\n{list}"),
            list.replace('\n', "\r"),
        ] {
            assert!(itemwise("t.yaml", &text).is_none(), "{text}");
        }
    }

    /// The command line's files: a list read item by item between files read whole gives the
    /// input of reading them all whole, in order; its leading comment lines are kept.
    #[test]
    fn files_read_item_by_item_and_whole_make_one_input_in_order() {
        let dir =
            std::env::temp_dir().join(format!("fleet-policy-read-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        let list = format!(
            "# at: 2026-03-04T12:00:00Z\n{}",
            corpus("kubectl/memberclusters.yaml")
        );
        let texts = [
            ("a.yaml", corpus("kubectl/placements.yaml")),
            ("b.yaml", list),
            ("c.json", corpus("kubectl/memberclusters.json")),
        ];
        let mut files = Vec::new();
        for (name, text) in &texts {
            let path = dir.join(name);
            std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
            files.push(path.display().to_string());
        }
        // The list with its comment line is read item by item; the others are no lists.
        let itemwise: Vec<bool> = files
            .iter()
            .map(|f| read_list(f, Path::new(f)).is_some())
            .collect();
        assert_eq!(itemwise, [false, true, true]);
        let (input, leading) = read_files(&files).unwrap_or_else(|e| panic!("{e}"));
        let sources: Vec<Source> = files
            .iter()
            .zip(&texts)
            .map(|(f, (_, t))| Source::new(f, t.as_str()))
            .collect();
        assert_eq!(input, Input::parse(&sources));
        assert_eq!(leading[1].text, "# at: 2026-03-04T12:00:00Z\n");
        // A folder (`fleet-policy diff`, `test`): its YAML files in name order, the same way.
        let folder = read_paths(&[&dir]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(folder, Input::parse(&sources[..2]));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
