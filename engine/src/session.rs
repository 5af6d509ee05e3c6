//! Evaluating again after an edit (the playground, per keystroke): only the documents whose
//! text changed are read again, and the items of a `kind: List` (what `kubectl get -o yaml`
//! and `-o json` print) one by one, so an edit to a 10,000-cluster dump re-reads the item it
//! touched, not the dump. A report is reused while neither the input read nor the options changed (a
//! keystroke in a comment or in blank space). Results are those of [`crate::evaluate`] on the
//! whole text: anything this module does not recognise is read the ordinary way.

use crate::input::documents::{
    is_marker, parse_text, parse_text_nested, read_chunks, read_list_item, split_documents, Chunk,
    Mark, MAX_DIAGNOSTICS, MAX_INPUT_BYTES,
};
use crate::input::json;
use crate::input::node::Value;
use crate::input::{Diagnostic, Document, Input, Node, Source};
use crate::notice::NoticeKind;
use crate::placement::eligibility::Timeouts;
use crate::placement::{self, CycleError, Prepared};
use crate::report::{EvaluateOptions, EvaluateReport};
use chrono::{DateTime, Utc};
use std::rc::Rc;

/// What eligibility reads besides the clusters: the instant and the check timeouts.
type Eligibility = (DateTime<Utc>, Timeouts);

/// What a piece is: a whole document, or one item of a list document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Chunk,
    Item(usize, Form),
}

/// How a list's items are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Form {
    /// Block YAML (`kubectl get -o yaml`): each item from its `-` line at column 0.
    Yaml,
    /// JSON (`kubectl get -o json`): each item from its `{` line to its `}` line, followed by
    /// a comma unless it is the `last`.
    Json { last: bool },
}

/// A piece of a source text, read on its own.
#[derive(Debug, Clone)]
struct Piece {
    /// Byte range in the source text.
    start: usize,
    end: usize,
    first_line: u32,
    kind: Kind,
    /// For a chunk, the number of the document before it; for an item, its list's number.
    index: usize,
    /// The number of the last document read once this piece is read.
    next: usize,
    /// How many entries it added to each list of the [`Input`].
    counts: Mark,
    /// The newest status time of its manifests ([`Document::newest_time`]).
    newest: Option<DateTime<Utc>>,
    /// Whether it holds a MemberCluster.
    members: bool,
}

impl Piece {
    /// The piece planned as `p` (with its `index` and `next`, as above), read as `fresh`.
    fn read(p: &Planned, index: usize, next: usize, fresh: &Input) -> Piece {
        Piece {
            start: p.start,
            end: p.start + p.text.len(),
            first_line: p.first_line,
            kind: p.kind,
            index,
            next,
            counts: fresh.mark(),
            newest: newest(fresh),
            members: has_members(fresh),
        }
    }
}

/// One source as last read.
#[derive(Debug, Clone, Default)]
struct SourceState {
    name: String,
    /// Shared with the caller (`Session::update_shared`): an unchanged text is the same one,
    /// known without comparing it.
    text: Rc<str>,
    pieces: Vec<Piece>,
}

/// The old input's lists, taken from the front as pieces are kept or dropped.
struct Cursor {
    documents: std::vec::IntoIter<Document>,
    diagnostics: std::vec::IntoIter<crate::input::Diagnostic>,
    ignored: std::vec::IntoIter<(String, String)>,
    own: std::vec::IntoIter<Document>,
    clusters: std::vec::IntoIter<(String, Node)>,
    maintenance: std::vec::IntoIter<(String, Node)>,
    ids: std::vec::IntoIter<u64>,
}

impl Cursor {
    fn new(input: Input, ids: Vec<u64>) -> Cursor {
        Cursor {
            ids: ids.into_iter(),
            documents: input.documents.into_iter(),
            diagnostics: input.diagnostics.into_iter(),
            ignored: input.ignored.into_iter(),
            own: input.own.into_iter(),
            clusters: input.azure_clusters.into_iter(),
            maintenance: input.azure_maintenance.into_iter(),
        }
    }

    /// Moves the next `c` entries of each list into `to`, and the documents' ids into `ids`.
    fn take(&mut self, c: Mark, to: &mut Input, ids: &mut Vec<u64>) {
        ids.extend(self.ids.by_ref().take(c.documents));
        to.documents
            .extend(self.documents.by_ref().take(c.documents));
        to.diagnostics
            .extend(self.diagnostics.by_ref().take(c.diagnostics));
        to.ignored.extend(self.ignored.by_ref().take(c.ignored));
        to.own.extend(self.own.by_ref().take(c.own));
        to.azure_clusters
            .extend(self.clusters.by_ref().take(c.clusters));
        to.azure_maintenance
            .extend(self.maintenance.by_ref().take(c.maintenance));
    }
}

/// Moves everything of `from` to the end of `to` (no cap: the session reads incrementally only
/// while the input stays under [`MAX_DIAGNOSTICS`]).
pub(crate) fn append(to: &mut Input, from: Input) {
    to.documents.extend(from.documents);
    to.diagnostics.extend(from.diagnostics);
    to.ignored.extend(from.ignored);
    to.own.extend(from.own);
    to.azure_clusters.extend(from.azure_clusters);
    to.azure_maintenance.extend(from.azure_maintenance);
}

/// A piece to read: its range, first line and what it is.
pub(crate) struct Planned<'a> {
    pub(crate) text: &'a str,
    pub(crate) start: usize,
    pub(crate) first_line: u32,
    pub(crate) kind: Kind,
}

/// The document chunks of a source and, for a chunk that is a `kind: List` as kubectl prints
/// it (block YAML with its items at column 0, or JSON with each item on lines of its own), the
/// list's frame (the list without its items) and its items.
enum Part<'a> {
    Chunk(Chunk<'a>, usize),
    List {
        chunk: Chunk<'a>,
        start: usize,
        frame: String,
        items: Vec<Planned<'a>>,
    },
}

/// The length of the common prefix of two byte strings, compared eight bytes at a time (a
/// 7 MB fleet is compared on every keystroke; wasm's byte-wise `memcmp` took 20 ms for it).
fn word(s: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&s[at..at + 8]);
    u64::from_ne_bytes(w)
}

/// Whether two 64-byte blocks are equal: their words' differences folded without a branch
/// (natively that is vector code).
fn same_block(a: &[u8], b: &[u8]) -> bool {
    (0..64)
        .step_by(8)
        .fold(0, |d, at| d | (word(a, at) ^ word(b, at)))
        == 0
}

fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + 64 <= n && same_block(&a[i..i + 64], &b[i..i + 64]) {
        i += 64;
    }
    while i + 8 <= n && word(a, i) == word(b, i) {
        i += 8;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

/// The length of the common suffix of two byte strings, at most `max`.
fn common_suffix(a: &[u8], b: &[u8], max: usize) -> usize {
    let n = a.len().min(b.len()).min(max);
    let (a, b) = (&a[a.len() - n..], &b[b.len() - n..]);
    let mut i = 0;
    while i + 64 <= n && same_block(&a[n - i - 64..n - i], &b[n - i - 64..n - i]) {
        i += 64;
    }
    while i + 8 <= n && word(a, n - i - 8) == word(b, n - i - 8) {
        i += 8;
    }
    while i < n && a[n - i - 1] == b[n - i - 1] {
        i += 1;
    }
    i
}

/// The common prefix of two texts and their common suffix after it: the edit from one to the
/// other lies between them. Compared from `known` on: the first `known.prefix` and the last
/// `known.suffix` bytes of both are the same (the page knows where its editor was edited, so
/// a keystroke in a 28 MB dump compares a few bytes, not the whole text).
fn common_ends(a: &[u8], b: &[u8], known: Unchanged) -> (usize, usize) {
    let n = a.len().min(b.len());
    let from = known.prefix.min(n);
    let prefix = from + common_prefix(&a[from..], &b[from..]);
    let max_suffix = n - prefix;
    let known_suffix = known.suffix.min(max_suffix);
    let (a, b) = (&a[..a.len() - known_suffix], &b[..b.len() - known_suffix]);
    (
        prefix,
        known_suffix + common_suffix(a, b, max_suffix - known_suffix),
    )
}

/// What a caller knows of how a text differs from the one the session last read for its
/// source: its first `prefix` bytes and its last `suffix` bytes are that text's. It may know
/// less than there is (zero knows nothing), never more.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Unchanged {
    /// Bytes at the start that are the same.
    pub prefix: usize,
    /// Bytes at the end that are the same.
    pub suffix: usize,
}

fn offset(whole: &str, part: &str) -> usize {
    part.as_ptr() as usize - whole.as_ptr() as usize
}

/// Splits a List chunk into its frame and items; `None` when it does not have that shape.
fn list_parts<'a>(whole: &'a str, chunk: &Chunk<'a>) -> Option<Part<'a>> {
    let start = offset(whole, chunk.text);
    let text = chunk.text;
    // One pass over the lines, keeping none of them: a 28 MB dump is split on every keystroke.
    let mut lines = lines(text).enumerate();
    let items_end = loop {
        let (_, (s, e)) = lines.next()?;
        let l = &text[s..e];
        if l.trim_end_matches('\n') == "items:" {
            break e;
        }
        // Directives apply to the whole document: read such a list the ordinary way.
        if l.starts_with('%') {
            return None;
        }
    };
    let is_dash = |l: &str| l.starts_with("- ") || l.trim_end() == "-";
    let (first, (first_start, first_end)) = lines.next()?;
    if !is_dash(&text[first_start..first_end]) {
        return None;
    }
    let item = |from: usize, to: usize, line: usize, index: usize| Planned {
        text: &text[from..to],
        start: start + from,
        first_line: chunk.first_line + u32::try_from(line).unwrap_or(u32::MAX),
        kind: Kind::Item(index, Form::Yaml),
    };
    let mut items: Vec<Planned> = Vec::new();
    let (mut item_line, mut item_start, mut end) = (first, first_start, first_end);
    let mut tail = "";
    for (n, (s, e)) in lines {
        // Most lines of an item are indented: inside, and no item's start.
        if text.as_bytes()[s] == b' ' {
            end = e;
            continue;
        }
        let l = &text[s..e];
        let dash = is_dash(l);
        if !(dash || l.starts_with([' ', '\t', '#']) || l.trim().is_empty()) {
            tail = &text[s..];
            break;
        }
        if dash {
            items.push(item(item_start, s, item_line, items.len()));
            (item_line, item_start) = (n, s);
        }
        end = e;
    }
    items.push(item(item_start, end, item_line, items.len()));
    let head = &text[..items_end];
    Some(Part::List {
        chunk: Chunk {
            text,
            first_line: chunk.first_line,
        },
        start,
        frame: format!("{head}{tail}"),
        items,
    })
}

/// Splits a JSON List chunk as `kubectl get -o json` prints it into its frame and items: the
/// items' array opens at the end of a line (`"items": [`), each item starts on a line of its
/// own (`{`, all at one indentation) and ends on one (`}`, or `},` before another item), and
/// the array closes on the next line. The frame is the chunk with `null` for the array.
/// `None` when it does not have that shape. Whether each item is one JSON object is checked
/// when it is read ([`read_item`]).
fn json_list_parts<'a>(whole: &'a str, chunk: &Chunk<'a>) -> Option<Part<'a>> {
    let text = chunk.text;
    if !crate::input::json::looks_like_json(text) {
        return None;
    }
    let start = offset(whole, text);
    let line = |(s, e): (usize, usize)| {
        let l = text[s..e].trim_end_matches('\n');
        let body = l.trim_start_matches(' ');
        (&l[..l.len() - body.len()], body)
    };
    let mut lines = lines(text).enumerate();
    let open = loop {
        let (_, range) = lines.next()?;
        let (pad, body) = line(range);
        if body == "\"items\": [" {
            break range.0 + pad.len() + body.len() - 1;
        }
    };
    let mut items = Vec::new();
    let mut indent = None;
    let mut item: Option<(usize, usize)> = None;
    let mut last = false;
    let close = loop {
        let (n, range) = lines.next()?;
        let (pad, body) = line(range);
        match item {
            Some((first, from)) => {
                if Some(pad) == indent && (body == "}" || body == "},") {
                    last = body == "}";
                    items.push(Planned {
                        text: &text[from..range.1],
                        start: start + from,
                        first_line: chunk.first_line + u32::try_from(first).unwrap_or(u32::MAX),
                        kind: Kind::Item(items.len(), Form::Json { last }),
                    });
                    item = None;
                }
            }
            None if !last && body == "{" && indent.is_none_or(|i| i == pad) => {
                indent = Some(pad);
                item = Some((n, range.0));
            }
            None if last && body.starts_with(']') => break range.0 + pad.len(),
            None => return None,
        }
    };
    Some(Part::List {
        chunk: Chunk {
            text,
            first_line: chunk.first_line,
        },
        start,
        frame: format!("{}null{}", &text[..open], &text[close + 1..]),
        items,
    })
}

/// The lines of `text` as byte ranges, each with its newline.
fn lines(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let len = text.len();
    let mut from = 0;
    memchr::memchr_iter(b'\n', text.as_bytes())
        .map(|nl| nl + 1)
        .chain((!text.ends_with('\n') && len > 0).then_some(len))
        .map(move |end| (std::mem::replace(&mut from, end), end))
}

/// Whether a list's frame (every line but its items) reads as a list that yields its items
/// and nothing else, as it does when the whole list is read.
pub(crate) fn frame_is_list(frame: &str, first_line: u32) -> bool {
    if crate::input::stream::forbidden_char(frame, first_line).is_some() {
        return false;
    }
    // As reading the text whole does: JSON followed by a `{` or `[` (typed after a `-o json`
    // list's closing brace) is values one after another, not the list.
    if json::looks_like_json(frame) && json::parse_stream(frame, first_line, |_, _| {}).is_some() {
        return false;
    }
    let Ok((Some(root), dups)) = parse_text(frame, first_line) else {
        return false;
    };
    let kind = root.get("kind").and_then(Node::as_str);
    dups.is_empty()
        && root.as_map().is_some()
        && root.get("apiVersion").and_then(Node::as_str).is_some()
        && kind.is_some_and(|k| k == "List" || k.ends_with("List"))
        && root.get("items").is_some_and(Node::is_null)
}

/// Reads one list item on its own: `None` when it does not read cleanly as one item (the
/// list is then read whole, which reports what is wrong as reading it whole does).
pub(crate) fn read_item(source: &str, index: usize, p: &Planned) -> Option<Input> {
    let Kind::Item(item, form) = p.kind else {
        return None;
    };
    if crate::input::stream::forbidden_char(p.text, p.first_line).is_some() {
        return None;
    }
    let node = match form {
        Form::Yaml => {
            // The item is read as a one-item sequence: the list's mapping is around it.
            let Ok((Some(root), dups)) = parse_text_nested(p.text, p.first_line, 1) else {
                return None;
            };
            if !dups.is_empty() {
                return None;
            }
            let Value::Seq(nodes) = root.value else {
                return None;
            };
            let [node] = <[Node; 1]>::try_from(Vec::from(nodes)).ok()?;
            node
        }
        Form::Json { last } => {
            // One object, then the comma before the next item: with them the items are
            // exactly the list's array, as the JSON reader reads the whole text.
            let body = p.text.trim_end();
            let body = if last { body } else { body.strip_suffix(',')? };
            let (node, dups) = crate::input::json::parse_nested(body, p.first_line, 2)?;
            if !dups.is_empty() || node.as_map().is_none() {
                return None;
            }
            node
        }
    };
    let mut input = Input::default();
    read_list_item(source, index, item, node, &mut input);
    Some(input)
}

const MEMBER: &str = "MemberCluster";

fn has_members(input: &Input) -> bool {
    input.documents.iter().any(|d| d.kind == MEMBER)
}

fn newest(input: &Input) -> Option<DateTime<Utc>> {
    input
        .documents
        .iter()
        .filter_map(Document::newest_time)
        .max()
}

/// What decoding one MemberCluster document gave, kept for the next decoding of the fleet.
#[derive(Debug)]
struct Decoded {
    /// Whether it decoded to a cluster.
    cluster: bool,
    /// Where its cluster is in the fleet (sorted by name), when the fleet took it.
    slot: Option<usize>,
    errors: Vec<Diagnostic>,
}

/// Incremental reading and evaluation of a set of named sources.
#[derive(Debug, Default)]
pub struct Session {
    sources: Vec<SourceState>,
    /// False when the input was read the ordinary way (nothing to reuse next time).
    pieced: bool,
    input: Input,
    snapshot: Option<DateTime<Utc>>,
    /// Bumped whenever the input read changes.
    generation: u64,
    /// Bumped whenever a MemberCluster of it changes.
    members: u64,
    /// The fleet decoded for placement: for `members`, the instant and the eligibility
    /// timeouts, with the number of diagnostics decoding it gave.
    fleet: Option<(u64, Eligibility, usize, Prepared)>,
    /// Per MemberCluster document of that fleet, in order, with its id: what decoding it
    /// gave. When a MemberCluster changes, only the documents with a new id are decoded again.
    decoded: Vec<(u64, Decoded)>,
    /// The first id not given when that fleet was decoded.
    decoded_from: u64,
    /// An id per document of `input`: a document keeps its id while the piece it was read
    /// from is kept.
    ids: Vec<u64>,
    next_id: u64,
    last: Option<(u64, EvaluateOptions, Rc<EvaluateReport>)>,
}

impl Session {
    /// A session with nothing read.
    pub fn new() -> Session {
        Session::default()
    }

    /// The input as last read: equal to `Input::parse(sources)`.
    pub fn input(&self) -> &Input {
        &self.input
    }

    /// [`Input::snapshot`] of the input.
    pub fn snapshot(&self) -> Option<DateTime<Utc>> {
        self.snapshot
    }

    /// A number that changes whenever the input read changes.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// A number that changes whenever a MemberCluster of the input changes.
    pub fn members_generation(&self) -> u64 {
        self.members
    }

    /// An id per document of [`Session::input`], in order: a document keeps its id while its
    /// text is not read again, so what a caller derived from a document can be kept by id.
    /// Kept documents stay in the order they were in, and a document read again gets an id
    /// greater than every id given before: a caller finds the kept ones in one walk.
    pub fn document_ids(&self) -> &[u64] {
        &self.ids
    }

    /// Evaluates the input as [`crate::evaluate_input`] does, or returns the last report when
    /// neither the input nor the options changed since.
    pub fn evaluate(&mut self, options: &EvaluateOptions) -> Rc<EvaluateReport> {
        if let Some((generation, o, report)) = &self.last {
            if *generation == self.generation && o == options {
                return report.clone();
            }
        }
        let report = self
            .evaluate_keeping_fleet(options)
            .unwrap_or_else(|| crate::report::evaluate(&self.input, options));
        let report = Rc::new(report);
        self.last = Some((self.generation, options.clone(), report.clone()));
        report
    }

    /// Evaluates with the fleet decoded for an earlier evaluation when no MemberCluster and
    /// not the instant changed since (decoding 10,000 clusters was most of a keystroke in the
    /// policy). `None` in the cases where the result could differ from evaluating whole: a
    /// notice that reads the whole input's snapshot, and property values that are not
    /// quantities (whose errors only a whole placement run locates).
    fn evaluate_keeping_fleet(&mut self, options: &EvaluateOptions) -> Option<EvaluateReport> {
        // Eligibility reads the instant and the check timeouts: either changes which
        // clusters are eligible.
        let at = (options.place.at, options.place.timeouts());
        if !matches!(&self.fleet, Some((g, t, _, _)) if *g == self.members && *t == at) {
            self.decode_fleet(at, options);
        }
        let r = placement::prepare_placements(&self.input);
        let (_, _, decoded, fleet) = self.fleet.as_mut()?;
        if fleet
            .notices
            .iter()
            .any(|n| n.kind == NoticeKind::StaleHeartbeats)
        {
            return None;
        }
        fleet.diagnostics.truncate(*decoded);
        fleet.diagnostics.extend(r.diagnostics);
        fleet.placements = r.placements;
        fleet.bindings = r.bindings;
        let report = crate::report::evaluate_with(&self.input, options, Some(fleet));
        let not_quantity = report.placements.iter().any(|p| {
            matches!(
                p.cycle_error.as_ref().map(|e| &e.error),
                Some(CycleError::PropertyNotAQuantity { .. })
            )
        });
        (!not_quantity).then_some(report)
    }

    /// The fleet decoded at `at` with the MemberCluster documents read again since put in
    /// place of the ones they replace, when that is all that changed: the same documents in
    /// the same order, each one read again where an admitted cluster of the same name was.
    /// The fleet's names and order then stay as they were (no other document's admission can
    /// change): only those clusters are decoded and indexed, and their errors take the place
    /// of the ones they had (a typo in one item of a 10,000-cluster dump is an error there,
    /// not a new fleet). False, with nothing changed, otherwise.
    fn patch_fleet(&mut self, at: Eligibility, options: &EvaluateOptions) -> bool {
        let Some((members, decoded_at, decoded_len, prepared)) = &mut self.fleet else {
            return false;
        };
        if *decoded_at != at {
            return false;
        }
        let documents = self.input.documents.iter().zip(&self.ids);
        let mut was = self.decoded.iter();
        // Where each document's diagnostics start among the fleet's: its decoding errors,
        // then one more when it decoded but was not admitted (no name, or a repeated one).
        let mut start = 0;
        let mut changed = Vec::new();
        for (position, (doc, &id)) in documents.filter(|(d, _)| d.kind == MEMBER).enumerate() {
            let Some((old_id, old)) = was.next() else {
                return false;
            };
            let here = start;
            start += old.errors.len() + usize::from(old.cluster && old.slot.is_none());
            if id == *old_id {
                continue;
            }
            // Read again (a new id) where an admitted cluster was.
            let Some(slot) = old.slot.filter(|_| id >= self.decoded_from) else {
                return false;
            };
            let (Some(cluster), errors) = placement::decode_member(doc, &options.place) else {
                return false;
            };
            let same_name = prepared
                .fleet
                .clusters
                .get(slot)
                .is_some_and(|c| c.name == cluster.name);
            if !same_name {
                return false;
            }
            changed.push((
                position,
                id,
                slot,
                cluster,
                errors,
                here..here + old.errors.len(),
            ));
        }
        if was.next().is_some()
            || changed.is_empty()
            || start != *decoded_len
            || prepared.diagnostics.len() < start
        {
            return false;
        }
        prepared.diagnostics.truncate(*decoded_len);
        // Last first: the ranges before stay where they are.
        for (position, id, slot, cluster, errors, range) in changed.into_iter().rev() {
            prepared.fleet.replace(slot, cluster);
            prepared.diagnostics.splice(range, errors.iter().cloned());
            if let Some(d) = self.decoded.get_mut(position) {
                d.0 = id;
                d.1.errors = errors;
            }
        }
        *decoded_len = prepared.diagnostics.len();
        prepared.notices = placement::fleet_notices(&self.input, &prepared.fleet, at.0);
        *members = self.members;
        self.decoded_from = self.next_id;
        true
    }

    /// Decodes the fleet of the input's MemberClusters at `at`. A document kept since the
    /// last decoding at the same `at` (same id) gives what it gave then, its cluster moved
    /// over from the old fleet: an edit in one item of a 10,000-cluster dump decodes that
    /// item, not the fleet.
    fn decode_fleet(&mut self, at: Eligibility, options: &EvaluateOptions) {
        if self.patch_fleet(at, options) {
            return;
        }
        // Each MemberCluster document's id and name, in order.
        let members: Vec<(u64, Option<&str>)> = self
            .input
            .documents
            .iter()
            .zip(&self.ids)
            .filter(|(d, _)| d.kind == MEMBER)
            .map(|(d, &id)| (id, d.name.as_deref()))
            .collect();
        let (old, mut clusters) = match self.fleet.take() {
            Some((_, t, _, p)) if t == at => (
                std::mem::take(&mut self.decoded),
                p.fleet.clusters.into_iter().map(Some).collect(),
            ),
            _ => (Vec::new(), Vec::new()),
        };
        // Kept documents are in the order they were in (pieces are kept in order), and every
        // document read since has an id from `self.decoded_from` on: one walk finds them.
        let mut old = old.into_iter();
        let known = self.decoded_from;
        let mut decoded = Vec::with_capacity(members.len());
        let (p, admitted) = placement::prepare_fleet(&self.input, at.0, |i, doc| {
            let id = members.get(i).map_or(u64::MAX, |m| m.0);
            let mut kept = None;
            if id < known {
                kept = old.by_ref().find(|(was, _)| *was == id).map(|(_, d)| d);
            }
            let (cluster, errors) = match kept {
                Some(d) => {
                    let cluster = d
                        .slot
                        .and_then(|s| clusters.get_mut(s)?.take())
                        .filter(|c| doc.name.as_deref() == Some(c.name.as_str()));
                    if d.cluster && cluster.is_none() {
                        placement::decode_member(doc, &options.place)
                    } else {
                        (cluster, d.errors)
                    }
                }
                _ => placement::decode_member(doc, &options.place),
            };
            decoded.push((id, cluster.is_some(), errors.clone()));
            (cluster, errors)
        });
        let fleet = &p.fleet.clusters;
        // Each admitted cluster's place in the fleet (sorted by name). A dump lists its
        // clusters by name, so the next place is tried before a search.
        let mut next = 0;
        self.decoded = decoded
            .into_iter()
            .zip(&admitted)
            .zip(&members)
            .map(|(((id, cluster, errors), &a), &(_, name))| {
                let slot = a.then_some(name).flatten().and_then(|n| {
                    let at = match fleet.get(next) {
                        Some(c) if c.name == n => next,
                        _ => fleet.binary_search_by(|c| c.name.as_str().cmp(n)).ok()?,
                    };
                    next = at + 1;
                    Some(at)
                });
                (
                    id,
                    Decoded {
                        cluster,
                        slot,
                        errors,
                    },
                )
            })
            .collect();
        self.decoded_from = self.next_id;
        self.fleet = Some((self.members, at, p.diagnostics.len(), p));
    }

    /// Reads the sources, re-reading only what changed since the last call; returns whether
    /// the input read changed.
    pub fn update(&mut self, sources: &[Source]) -> bool {
        // Unchanged sources are not copied.
        if self.unchanged(sources) {
            return false;
        }
        let shared: Vec<(&str, Rc<str>)> = sources
            .iter()
            .map(|s| (s.name.as_str(), Rc::from(s.text.as_str())))
            .collect();
        self.update_shared(&shared)
    }

    /// [`Session::update`] with each source as (name, text) where the session may keep the
    /// text: a text that is the one last given (the same `Rc`) is known unchanged without
    /// comparing it (a keystroke in the policy does not compare a 7 MB fleet), and no text is
    /// copied.
    pub fn update_shared(&mut self, sources: &[(&str, Rc<str>)]) -> bool {
        self.update_edited(sources, &[])
    }

    /// [`Session::update_shared`] told, per source, what of its text is as last read
    /// (`known[i]` for `sources[i]`; missing or default where nothing is known): the edit is
    /// then looked for between those bytes only. What it says must be true, or what is read
    /// may not be the text given.
    pub fn update_edited(&mut self, sources: &[(&str, Rc<str>)], known: &[Unchanged]) -> bool {
        let changed = self.read(sources, known);
        if self.pieced {
            for (state, (_, text)) in self.sources.iter_mut().zip(sources) {
                state.text = text.clone();
            }
        }
        changed
    }

    fn same_names<'a>(&self, mut names: impl ExactSizeIterator<Item = &'a str>) -> bool {
        self.sources.len() == names.len()
            && self.sources.iter().all(|a| names.next() == Some(&a.name))
    }

    /// Whether `sources` are those last read, names and texts.
    fn unchanged(&self, sources: &[Source]) -> bool {
        self.same_names(sources.iter().map(|s| s.name.as_str()))
            && self
                .sources
                .iter()
                .zip(sources)
                .all(|(a, b)| *a.text == *b.text)
    }

    fn read(&mut self, sources: &[(&str, Rc<str>)], known: &[Unchanged]) -> bool {
        let same_names = self.same_names(sources.iter().map(|s| s.0));
        // Each text's common prefix and suffix with the one before, worked out once: they
        // say whether the text changed and where (a 28 MB dump is not compared thrice).
        let edits: Vec<(usize, usize)> = if same_names {
            self.sources
                .iter()
                .zip(sources)
                .enumerate()
                .map(|(i, (a, (_, b)))| {
                    if Rc::ptr_eq(&a.text, b) {
                        (b.len(), 0)
                    } else {
                        let known = known.get(i).copied().unwrap_or_default();
                        common_ends(a.text.as_bytes(), b.as_bytes(), known)
                    }
                })
                .collect()
        } else {
            Vec::new()
        };
        if same_names
            && edits
                .iter()
                .zip(&self.sources)
                .zip(sources)
                .all(|((e, a), (_, b))| e.0 == a.text.len() && e.0 == b.len())
        {
            return false;
        }
        // Texts read in pieces were plain: of an edited one, only what the edit put there is
        // searched for a carriage return.
        let no_cr = |i: usize, text: &str| {
            let (from, to) = match edits.get(i) {
                Some(&(prefix, suffix)) if self.pieced => (prefix, text.len() - suffix),
                _ => (0, text.len()),
            };
            !text.as_bytes()[from..to].contains(&b'\r')
        };
        // What this module does not take apart is read the ordinary way: line endings and
        // byte order marks (read_source normalises them per source), the size cap, AKS facts
        // joined across documents and capped diagnostics.
        let plain = sources
            .iter()
            .enumerate()
            .all(|(i, (_, t))| !t.starts_with('\u{feff}') && no_cr(i, t))
            && sources.iter().map(|(_, t)| t.len()).sum::<usize>() <= MAX_INPUT_BYTES;
        let read = if plain && same_names && self.pieced {
            self.read_pieces(sources, &edits)
        } else if plain {
            self.sources = sources
                .iter()
                .map(|(name, _)| SourceState {
                    name: name.to_string(),
                    ..SourceState::default()
                })
                .collect();
            self.input = Input::default();
            self.ids = Vec::new();
            self.read_pieces(sources, &[])
        } else {
            None
        };
        let changed = match read {
            Some((input, ids, changed, members)) if Self::pieces_hold(&input) => {
                self.input = input;
                self.ids = ids;
                self.pieced = true;
                self.members += u64::from(members);
                changed
            }
            _ => {
                self.members += 1;
                let whole: Vec<Source> = sources
                    .iter()
                    .map(|(name, text)| Source::new(*name, &**text))
                    .collect();
                self.input = Input::parse(&whole);
                let n = self.input.documents.len() as u64;
                self.ids = (self.next_id..self.next_id + n).collect();
                self.next_id += n;
                self.pieced = false;
                self.sources = sources
                    .iter()
                    .map(|(name, _)| SourceState {
                        name: name.to_string(),
                        ..SourceState::default()
                    })
                    .collect();
                true
            }
        };
        if changed {
            self.generation += 1;
            self.snapshot = if self.pieced {
                self.sources
                    .iter()
                    .flat_map(|s| &s.pieces)
                    .filter_map(|p| p.newest)
                    .max()
            } else {
                self.input.snapshot()
            };
        }
        changed
    }

    /// Whether an input read in pieces is what reading it whole gives: nothing of it depends
    /// on the other pieces.
    pub(crate) fn pieces_hold(input: &Input) -> bool {
        input.diagnostics.len() < MAX_DIAGNOSTICS
            && input.azure_clusters.is_empty()
            && input.azure_maintenance.is_empty()
    }

    /// Reads every source in pieces, keeping the pieces whose text (and place) did not change;
    /// `None` when the old state cannot be taken apart.
    fn read_pieces(
        &mut self,
        sources: &[(&str, Rc<str>)],
        edits: &[(usize, usize)],
    ) -> Option<(Input, Vec<u64>, bool, bool)> {
        let mut cursor = Cursor::new(
            std::mem::take(&mut self.input),
            std::mem::take(&mut self.ids),
        );
        let mut out = Input::default();
        let mut ids = Vec::new();
        let mut changed = false;
        let mut members = false;
        for (i, (state, (name, text))) in self.sources.iter_mut().zip(sources).enumerate() {
            let (old, new) = (state.text.as_bytes(), text.as_bytes());
            let (prefix, suffix) = edits
                .get(i)
                .copied()
                .unwrap_or_else(|| common_ends(old, new, Unchanged::default()));
            if prefix == old.len() && prefix == new.len() {
                for p in &state.pieces {
                    cursor.take(p.counts, &mut out, &mut ids);
                }
                continue;
            }
            let old = std::mem::take(&mut state.pieces);
            let pieces = read_source(
                name,
                text,
                &state.text,
                (prefix, suffix),
                &old,
                &mut cursor,
                &mut out,
                &mut ids,
                &mut self.next_id,
                &mut changed,
                &mut members,
            );
            // The text is kept by `update_shared`, once every source is read.
            state.pieces = pieces;
        }
        Some((out, ids, changed, members))
    }
}

/// Reads one edited source: pieces whose text and place are those of an old piece are moved
/// over from the old input (with their documents' ids), the rest are read (with new ids).
#[allow(clippy::too_many_arguments)]
fn read_source(
    source: &str,
    text: &str,
    old_text: &str,
    (prefix, suffix): (usize, usize),
    old: &[Piece],
    cursor: &mut Cursor,
    out: &mut Input,
    ids: &mut Vec<u64>,
    next_id: &mut u64,
    changed: &mut bool,
    members: &mut bool,
) -> Vec<Piece> {
    // The edit lies between the common prefix and the common suffix of the two texts.
    let mut r = Reader {
        source,
        new_len: text.len(),
        old_len: old_text.len(),
        prefix,
        suffix,
        old,
        next_old: 0,
        cursor,
        next_id: *next_id,
        changed: false,
        members: false,
    };
    if let Some(pieces) = r.edit_in_place(text, old_text, out, ids) {
        *changed |= r.changed;
        *members |= r.members;
        *next_id = r.next_id;
        return pieces;
    }
    let mut pieces = Vec::new();
    let mut index = 0;
    for part in parts(text) {
        match part {
            Part::Chunk(chunk, start) => {
                index = r.chunk(&chunk, start, index, out, ids, &mut pieces);
            }
            Part::List {
                chunk,
                start,
                frame,
                items,
            } => {
                let list = index + 1;
                match frame_is_list(&frame, chunk.first_line)
                    .then(|| r.items(&items, list))
                    .flatten()
                {
                    Some((local, local_ids, kept)) => {
                        pieces.extend(kept);
                        append(out, local);
                        ids.extend(local_ids);
                        index = list;
                    }
                    None => {
                        r.changed = true;
                        r.members = true;
                        index = r.chunk(&chunk, start, index, out, ids, &mut pieces);
                    }
                }
            }
        }
    }
    while r.next_old < old.len() {
        r.drop_next();
    }
    *changed |= r.changed;
    *members |= r.members;
    *next_id = r.next_id;
    pieces
}

/// The state of reading one edited source.
struct Reader<'a, 'c> {
    /// The source's name.
    source: &'a str,
    new_len: usize,
    old_len: usize,
    prefix: usize,
    suffix: usize,
    old: &'a [Piece],
    next_old: usize,
    cursor: &'c mut Cursor,
    /// The id of the next document read.
    next_id: u64,
    changed: bool,
    /// Whether a MemberCluster was read, dropped or changed.
    members: bool,
}

impl Reader<'_, '_> {
    /// The usual keystroke in a large input: an edit that leaves the text's structure as it
    /// was, so that splitting the text again would give the same pieces. The piece edited is
    /// read again and the others move over without the text being split (most of a
    /// keystroke's time in a 28 MB dump). Three such edits: within the indented lines of one
    /// list item (a line that starts with a space neither starts an item nor ends a
    /// document), within a document read whole, and in the lines after the items of a list
    /// that ends the text (`kind: List`, its metadata, blank space typed after it). None of
    /// them touches a line that starts with `-` or `.` (a document marker); those that are
    /// followed by other pieces add or remove no line (the pieces' lines would move). `None`
    /// when the edit is not such an edit, or what it gives does not read as the same
    /// structure (the text is then read in the usual way).
    fn edit_in_place(
        &mut self,
        text: &str,
        old_text: &str,
        out: &mut Input,
        ids: &mut Vec<u64>,
    ) -> Option<Vec<Piece>> {
        let (new, was) = (text.as_bytes(), old_text.as_bytes());
        let (old_end, new_end) = (self.old_len - self.suffix, self.new_len - self.suffix);
        // The lines the edit touches, in the old text and in the new: `from..old_to` and
        // `from..new_to` (up to the newline that ends the last of them).
        let from = memchr::memrchr(b'\n', &was[..self.prefix]).map_or(0, |n| n + 1);
        let old = self.old;
        // The first piece that ends after `from` (pieces are in text order and end at a
        // line's end).
        let k = old.partition_point(|o| o.end <= from);
        let last = k + 1 >= old.len();
        let within = old.get(k).filter(|o| o.start <= from);
        if within.is_some_and(|o| old_end > o.end) {
            return None;
        }
        let lines_in = |b: &[u8]| memchr::memchr_iter(b'\n', b).count();
        if !last && lines_in(&was[self.prefix..old_end]) != lines_in(&new[self.prefix..new_end]) {
            return None;
        }
        let line_end =
            |b: &[u8], at: usize| memchr::memchr(b'\n', &b[at..]).map_or(b.len(), |n| at + n);
        let (old_to, new_to) = (line_end(was, old_end), line_end(new, new_end));
        let lines_all = |starts: &dyn Fn(Option<&u8>) -> bool| {
            let all = |b: &[u8]| b.split(|&c| c == b'\n').all(|l| starts(l.first()));
            all(&was[from..old_to]) && all(&new[from..new_to])
        };
        let no_marker = |c: Option<&u8>| !matches!(c, Some(b'-' | b'.'));
        let Some(o) = within else {
            // After every piece: the lines after the items of a list that ends the text.
            let prev = old.get(k.checked_sub(1)?)?;
            if k != old.len() || !matches!(prev.kind, Kind::Item(..)) || from <= prev.end {
                return None;
            }
            if !lines_all(&no_marker) || !self.frame_still_list(text, prev) {
                return None;
            }
            for o in old {
                self.cursor.take(o.counts, out, ids);
            }
            self.next_old = old.len();
            return Some(old.to_vec());
        };
        if old_to >= o.end && !(old_to == o.end && o.end == self.old_len) {
            return None;
        }
        let end = (o.end + self.new_len).checked_sub(self.old_len)?;
        let p = Planned {
            text: text.get(o.start..end)?,
            start: o.start,
            first_line: o.first_line,
            kind: o.kind,
        };
        let (fresh, next) = match o.kind {
            Kind::Item(..) => {
                if !lines_all(&|c| c == Some(&b' ')) {
                    return None;
                }
                (read_item(self.source, o.index, &p)?, o.next)
            }
            Kind::Chunk => {
                let chunk = Chunk {
                    text: p.text,
                    first_line: p.first_line,
                };
                if !lines_all(&no_marker)
                    || list_parts(text, &chunk).is_some()
                    || json_list_parts(text, &chunk).is_some()
                {
                    return None;
                }
                let mut fresh = Input::default();
                let next = read_chunks(
                    self.source,
                    std::slice::from_ref(&chunk),
                    o.index,
                    &mut fresh,
                );
                if next != o.next && !last {
                    return None;
                }
                (fresh, next)
            }
        };
        let mut pieces = Vec::with_capacity(old.len());
        for o in &old[..k] {
            self.cursor.take(o.counts, out, ids);
            pieces.push(o.clone());
        }
        self.next_old = k;
        pieces.push(self.read_again(&p, o.index, next, fresh, out, ids));
        // The pieces after the edit moved by the length it added or removed.
        let shift = |at: usize| at + self.new_len - self.old_len;
        for o in &old[k + 1..] {
            self.cursor.take(o.counts, out, ids);
            pieces.push(Piece {
                start: shift(o.start),
                end: shift(o.end),
                ..o.clone()
            });
        }
        self.next_old = old.len();
        Some(pieces)
    }

    /// Whether the list whose last item is `last` still reads as a list with its lines after
    /// the items as `text` now has them: its head (from the document's start to its first
    /// item) and those lines, as splitting the text would give its frame.
    fn frame_still_list(&self, text: &str, last: &Piece) -> bool {
        let items = self
            .old
            .iter()
            .rev()
            .take_while(|o| o.index == last.index && matches!(o.kind, Kind::Item(..)));
        let Some(first) = items.last() else {
            return false;
        };
        // The document starts after the last marker line before its first item.
        let b = text.as_bytes();
        let mut start = first.start;
        while start > 0 {
            let line = memchr::memrchr(b'\n', &b[..start - 1]).map_or(0, |n| n + 1);
            if is_marker(b, line, b"---", false) {
                start = line;
                break;
            }
            if is_marker(b, line, b"...", true) {
                break;
            }
            start = line;
        }
        let (Some(head), Some(tail)) = (text.get(start..first.start), text.get(last.end..)) else {
            return false;
        };
        let first_line = first.first_line.saturating_sub(lines(head).count() as u32);
        frame_is_list(&format!("{head}{tail}"), first_line)
    }

    /// Where a new piece at `start` (`len` bytes) was in the old text, if it lies wholly
    /// before or after the edit.
    fn old_start(&self, start: usize, len: usize) -> Option<usize> {
        if start + len <= self.prefix {
            Some(start)
        } else if start >= self.new_len - self.suffix {
            Some(start + self.old_len - self.new_len)
        } else {
            None
        }
    }

    fn drop_next(&mut self) {
        let o = &self.old[self.next_old];
        self.cursor
            .take(o.counts, &mut Input::default(), &mut Vec::new());
        self.next_old += 1;
        self.changed = true;
        self.members |= o.members;
    }

    /// Takes the old piece that is `p` unchanged (same text, line, kind and number).
    fn keep(
        &mut self,
        p: &Planned,
        index: usize,
        out: &mut Input,
        ids: &mut Vec<u64>,
    ) -> Option<Piece> {
        let at = self.old_start(p.start, p.text.len())?;
        while self.old.get(self.next_old).is_some_and(|o| o.start < at) {
            self.drop_next();
        }
        let o = self.old.get(self.next_old)?;
        let same = o.start == at
            && o.end - o.start == p.text.len()
            && o.first_line == p.first_line
            && o.kind == p.kind
            && o.index == index;
        if !same {
            return None;
        }
        self.next_old += 1;
        self.cursor.take(o.counts, out, ids);
        Some(Piece {
            start: p.start,
            end: p.start + p.text.len(),
            ..o.clone()
        })
    }

    /// Notes that `p` was read again as `fresh`: the input is unchanged if the old piece at
    /// the same place (the one edited) read the same.
    fn replaced(&mut self, p: &Planned, index: usize, fresh: &Input) {
        while self
            .old
            .get(self.next_old)
            .is_some_and(|o| o.start < p.start && p.start <= self.prefix)
        {
            self.drop_next();
        }
        match self.old.get(self.next_old) {
            Some(o)
                if o.start == p.start
                    && o.kind == p.kind
                    && o.first_line == p.first_line
                    && o.index == index =>
            {
                let mut was = Input::default();
                self.cursor.take(o.counts, &mut was, &mut Vec::new());
                self.next_old += 1;
                if was != *fresh {
                    self.changed = true;
                    self.members |= o.members || has_members(fresh);
                }
            }
            _ => {
                self.changed = true;
                self.members |= has_members(fresh);
            }
        }
    }

    /// Keeps or reads a whole document chunk; returns the number of its last document.
    fn chunk(
        &mut self,
        chunk: &Chunk,
        start: usize,
        index: usize,
        out: &mut Input,
        ids: &mut Vec<u64>,
        pieces: &mut Vec<Piece>,
    ) -> usize {
        let p = Planned {
            text: chunk.text,
            start,
            first_line: chunk.first_line,
            kind: Kind::Chunk,
        };
        if let Some(kept) = self.keep(&p, index, out, ids) {
            let next = kept.next;
            pieces.push(kept);
            return next;
        }
        let mut fresh = Input::default();
        let next = read_chunks(self.source, std::slice::from_ref(chunk), index, &mut fresh);
        pieces.push(self.read_again(&p, index, next, fresh, out, ids));
        next
    }

    /// Keeps or reads the items of list number `list`; `None` when an item does not read on
    /// its own (the list is then read whole).
    fn items(&mut self, items: &[Planned], list: usize) -> Option<(Input, Vec<u64>, Vec<Piece>)> {
        let mut local = Input::default();
        let mut ids = Vec::with_capacity(items.len());
        let mut pieces = Vec::with_capacity(items.len());
        for p in items {
            if let Some(kept) = self.keep(p, list, &mut local, &mut ids) {
                pieces.push(kept);
                continue;
            }
            let fresh = read_item(self.source, list, p)?;
            pieces.push(self.read_again(p, list, list, fresh, &mut local, &mut ids));
        }
        Some((local, ids, pieces))
    }

    /// The piece planned as `p`, read again as `fresh`: noted against the old piece at its
    /// place, its documents given new ids and added to `out`.
    fn read_again(
        &mut self,
        p: &Planned,
        index: usize,
        next: usize,
        fresh: Input,
        out: &mut Input,
        ids: &mut Vec<u64>,
    ) -> Piece {
        self.replaced(p, index, &fresh);
        let piece = Piece::read(p, index, next, &fresh);
        self.fresh_ids(&fresh, ids);
        append(out, fresh);
        piece
    }

    /// New ids for the documents of a piece just read.
    fn fresh_ids(&mut self, fresh: &Input, ids: &mut Vec<u64>) {
        let first = self.next_id;
        self.next_id += fresh.documents.len() as u64;
        ids.extend(first..self.next_id);
    }
}

fn parts(text: &str) -> Vec<Part<'_>> {
    split_documents(text)
        .into_iter()
        .map(|c| {
            let start = offset(text, c.text);
            list_parts(text, &c)
                .or_else(|| json_list_parts(text, &c))
                .unwrap_or(Part::Chunk(c, start))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Told less than there is, or nothing, the common ends are found as from scratch (texts
    /// from 0 to 200 bytes, so that the 64- and 8-byte steps and the byte tail all end the
    /// comparison somewhere; the known ends may overlap, as after inserting into a run).
    #[test]
    fn known_ends_are_extended_to_the_common_ends() {
        let naive = |a: &[u8], b: &[u8]| {
            let p = a.iter().zip(b).take_while(|(x, y)| x == y).count();
            let max = a.len().min(b.len()) - p;
            let s = (0..max)
                .take_while(|&i| a[a.len() - 1 - i] == b[b.len() - 1 - i])
                .count();
            (p, s)
        };
        let base: Vec<u8> = (0..200u32).map(|i| b'a' + (i * 7 % 13) as u8).collect();
        for len in [0, 1, 7, 8, 9, 63, 64, 65, 130, 200] {
            let a = &base[..len];
            for at in (0..=len).step_by(3) {
                for (cut, insert) in [(0, &b"x"[..]), (1, b""), (2, b"ab"), (0, b"a")] {
                    let cut = cut.min(len - at);
                    let b = [&a[..at], insert, &a[at + cut..]].concat();
                    let (p, s) = naive(a, &b);
                    // The longest common end, not limited by the prefix.
                    let tail = a
                        .iter()
                        .rev()
                        .zip(b.iter().rev())
                        .take_while(|(x, y)| x == y);
                    let full_suffix = tail.count();
                    for known in [
                        Unchanged::default(),
                        Unchanged {
                            prefix: p,
                            suffix: full_suffix,
                        },
                        Unchanged {
                            prefix: p / 2,
                            suffix: full_suffix / 3,
                        },
                        Unchanged {
                            prefix: at,
                            suffix: len - at - cut,
                        },
                    ] {
                        assert_eq!(common_ends(a, &b, known), (p, s), "{len} {at} {known:?}");
                    }
                }
            }
        }
    }

    fn fleet(labels: [&str; 3]) -> String {
        let items: Vec<String> = labels
            .iter()
            .enumerate()
            .map(|(i, l)| {
                format!("- apiVersion: cluster.kubernetes-fleet.io/v1beta1\n  kind: MemberCluster\n  metadata:\n    labels: {{{l}}}\n    name: m{i}\n")
            })
            .collect();
        format!("apiVersion: v1\nitems:\n{}kind: List\n", items.concat())
    }

    const POLICY: &str = "apiVersion: placement.kubernetes-fleet.io/v1\nkind: ClusterResourcePlacement\nmetadata: {name: p}\nspec:\n  policy:\n    placementType: PickAll\n    affinity:\n      clusterAffinity:\n        requiredDuringSchedulingIgnoredDuringExecution:\n          clusterSelectorTerms:\n            - labelSelector: {matchExpressions: [{key: tier, operator: DoesNotExist}]}\n";

    /// Which way the fleet of `text` is decoded after the session read `before`: patched in
    /// place or not; the report is checked against a whole read either way.
    fn patched(before: &str, text: &str) -> bool {
        let o = EvaluateOptions::at(DateTime::default());
        let read = |t: &str| [Source::new("fleet", t), Source::new("policy", POLICY)];
        let mut s = Session::new();
        s.update(&read(before));
        s.evaluate(&o);
        s.update(&read(text));
        let in_place = s.patch_fleet((o.place.at, o.place.timeouts()), &o);
        let whole = crate::evaluate_input(&Input::parse(&read(text)), &o);
        assert!(*s.evaluate(&o) == whole, "{text}");
        in_place
    }

    #[test]
    fn an_edit_in_one_item_patches_the_fleet_in_place_errors_and_all() {
        let before = fleet(["env: prod", "env: prod", "env: prod"]);
        // A value, a key new to the fleet, every label gone: in place.
        assert!(patched(
            &before,
            &fleet(["env: prod", "env: prodx", "env: prod"])
        ));
        assert!(patched(
            &before,
            &fleet(["env: prod", "env: prod, tier: a", "env: prod"])
        ));
        assert!(patched(&before, &fleet(["", "env: prod", ""])));
        // A label that does not decode, a misspelt key, and both mended: in place, the
        // item's errors replacing the ones it had.
        let undecodable = fleet(["env: prod", "env: [1]", "env: prod"]);
        let misspelt = before.replacen("labels:", "lables:", 2);
        assert!(patched(&before, &undecodable));
        assert!(patched(&before, &misspelt));
        assert!(patched(&undecodable, &before));
        assert!(patched(
            &misspelt,
            &undecodable.replacen("labels:", "lables:", 1)
        ));
        // A name changed, an item added: decoded again.
        assert!(!patched(
            &before,
            &before.replacen("name: m1", "name: m9", 1)
        ));
        let added = before.replacen("kind: List", "- {kind: MemberCluster, apiVersion: cluster.kubernetes-fleet.io/v1beta1, metadata: {name: m3}}\nkind: List", 1);
        assert!(!patched(&before, &added));
    }
}
