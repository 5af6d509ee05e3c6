//! Source texts → YAML documents with spans → manifests (`apiVersion`/`kind` known).
//!
//! Each `---`-separated document is parsed on its own so that one broken document does not
//! hide the others, and `kind: List` documents (`kubectl get -o yaml`) are unpacked into
//! their items.

use super::de::DeError;
use super::diagnostics::{Diagnostic, Severity, Span};
use super::from_node::FromNode;
use super::kinds;
use super::node::{resolve, FieldPath, Node, PathSeg, Resolved, Value};
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

/// A named source text: a file for the CLI, an editor in the playground.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// Name shown in diagnostics.
    pub name: String,
    /// The YAML text.
    pub text: String,
}

impl Source {
    /// A source with a name and a text.
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        Source {
            name: name.into(),
            text: text.into(),
        }
    }
}

/// One Kubernetes-style manifest found in the input.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    /// Name of the source it came from.
    pub source: String,
    /// 1-based index of the YAML document in its source.
    pub index: usize,
    /// 0-based item index when it came from a `kind: List`.
    pub item: Option<usize>,
    /// `apiVersion` as written.
    pub api_version: String,
    /// `kind` as written.
    pub kind: String,
    /// `metadata.name`, if any.
    pub name: Option<String>,
    /// The whole manifest. Not to be changed after reading: [`Document::metadata`],
    /// [`Document::labels`] and [`Document::spec`] go to entry positions recorded then.
    pub root: Node,
    /// Where the common fields sit in `root`, found once when the manifest is read.
    layout: Layout,
    /// How an Azure resource (read into our kinds' shape) was written.
    arm: Option<super::arm::ArmShape>,
}

/// The kind's id and the entry indices of the fields most lookups want (`metadata`, its
/// `labels` and `annotations`, `spec`), found when the manifest is read. Lookups then go
/// straight to the entry instead of scanning mappings and comparing separately allocated key
/// strings (a cache miss each on inputs of thousands of manifests). Each index is the entry
/// [`Node::get`] finds (the last with that key), so answers are the same as a scan's.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Layout {
    /// [`kinds::id`] of `kind`.
    kind: Option<u16>,
    /// Entry of `metadata` in the root mapping.
    metadata: Option<u32>,
    /// Entry of `labels` in the `metadata` mapping.
    labels: Option<u32>,
    /// Entry of `annotations` in the `metadata` mapping.
    annotations: Option<u32>,
    /// Entry of `spec` in the root mapping.
    spec: Option<u32>,
}

impl Layout {
    /// The layout of a manifest whose `kind` is `kind`.
    fn of(root: &Node, kind: &str) -> Layout {
        let metadata = entry_index(root, "metadata");
        let meta = value_at(root, metadata);
        Layout {
            kind: kinds::id(kind),
            metadata,
            labels: meta.and_then(|m| entry_index(m, "labels")),
            annotations: meta.and_then(|m| entry_index(m, "annotations")),
            spec: entry_index(root, "spec"),
        }
    }
}

/// Index of the last entry with key `key` in a mapping node (what [`Node::get`] finds).
fn entry_index(map: &Node, key: &str) -> Option<u32> {
    let i = map
        .as_map()?
        .iter()
        .rposition(|(k, _)| k.as_scalar() == Some(key))?;
    u32::try_from(i).ok()
}

/// The value of the entry at `at` in a mapping node.
fn value_at(map: &Node, at: Option<u32>) -> Option<&Node> {
    let at = usize::try_from(at?).ok()?;
    map.as_map()?.get(at).map(|(_, v)| v)
}

/// [`value_at`], to change.
fn value_at_mut(map: &mut Node, at: Option<u32>) -> Option<&mut Node> {
    let at = usize::try_from(at?).ok()?;
    match &mut map.value {
        Value::Map(entries) => entries.get_mut(at).map(|(_, v)| v),
        _ => None,
    }
}

impl Document {
    /// A diagnostic about a field of this document, located at the field (or as close as the
    /// path exists).
    pub fn diagnostic(
        &self,
        severity: Severity,
        path: &FieldPath,
        message: impl Into<String>,
    ) -> Diagnostic {
        let span = self.root.locate(path).span();
        self.diagnostic_at(severity, path, span, message)
    }

    /// An error about a field of this document.
    pub fn error(&self, path: &FieldPath, message: impl Into<String>) -> Diagnostic {
        self.diagnostic(Severity::Error, path, message)
    }

    /// A warning about a field of this document.
    pub fn warning(&self, path: &FieldPath, message: impl Into<String>) -> Diagnostic {
        self.diagnostic(Severity::Warning, path, message)
    }

    /// A diagnostic with an explicit span.
    pub fn diagnostic_at(
        &self,
        severity: Severity,
        path: &FieldPath,
        span: Span,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            severity,
            source: self.source.clone(),
            document: self.index,
            item: self.item,
            kind: (!self.kind.is_empty()).then(|| self.kind.clone()),
            name: self.name.clone(),
            path: match self.arm {
                Some(shape) => shape.shown(path),
                None => path.to_string(),
            },
            line: span.line,
            column: span.column,
            message: message.into(),
        }
    }

    /// Decodes the whole manifest into a typed model (strict: wrong types, missing required
    /// fields and unknown fields are errors at their line:column).
    pub fn decode<T: FromNode>(&self) -> Result<T, Diagnostic> {
        T::from_node(&self.root).map_err(|e| self.decode_error(e))
    }

    /// Decodes one field of the manifest (for example `spec`) into a typed model.
    pub fn decode_at<T: FromNode>(&self, path: &FieldPath) -> Result<T, Diagnostic> {
        let node = self.root.locate(path);
        T::from_node(node).map_err(|mut e| {
            let mut full = path.0.clone();
            full.append(&mut e.path.0);
            e.path = FieldPath(full);
            self.decode_error(e)
        })
    }

    fn decode_error(&self, e: DeError) -> Diagnostic {
        let e = e.into_data();
        let span = e.span.unwrap_or(self.root.span());
        let message = match did_you_mean(&e.message) {
            Some(known) => format!("{}; did you mean `{known}`?", e.message),
            None => e.message,
        };
        self.diagnostic_at(Severity::Error, &e.path, span, message)
    }

    /// Decodes the whole manifest as the API server would read it if it let the object
    /// through: each unknown field, wrongly typed field or repeated field is an error on that
    /// field, and the object is decoded again without it. `None` only when an error names
    /// nothing that can be left out (a missing required field); the errors say why.
    pub fn decode_lenient<T: FromNode>(&self) -> (Option<T>, Vec<Diagnostic>) {
        self.decode_at_lenient(&FieldPath::root())
    }

    /// [`Document::decode_lenient`] of one field of the manifest (for example `spec`).
    pub fn decode_at_lenient<T: FromNode>(&self, path: &FieldPath) -> (Option<T>, Vec<Diagnostic>) {
        let with_base = |mut e: DeError| {
            let mut full = path.0.clone();
            full.append(&mut e.path.0);
            e.path = FieldPath(full);
            e
        };
        let mut error = match T::from_node(self.root.locate(path)) {
            Ok(v) => return (Some(v), Vec::new()),
            Err(e) => with_base(e),
        };
        // Copied only when something is wrong: the fields left out go from the copy.
        let mut root = self.root.clone();
        let mut errors = Vec::new();
        // Each round removes one field, so the rounds are bounded by the fields present;
        // the cap keeps a pathological document (thousands of bad fields) linear enough.
        for _ in 0..256 {
            // A key written twice in one mapping is the reader's error already ("duplicate
            // key"): the decoder's "duplicate field" for it would say it again.
            let said = repeated_key(&root, &error);
            let removed = leave_out(&mut root, &error);
            if !said {
                errors.push(self.decode_error(error));
            }
            if !removed {
                return (None, errors);
            }
            match T::from_node(root.locate(path)) {
                Ok(v) => return (Some(v), errors),
                Err(e) => error = with_base(e),
            }
        }
        errors.push(self.decode_error(error));
        (None, errors)
    }

    /// The document's `metadata.labels` as written (string values only).
    pub fn labels(&self) -> impl Iterator<Item = (&str, &str)> {
        self.labels_map()
            .iter()
            .filter_map(|(k, v)| Some((k.as_scalar()?, v.as_scalar()?)))
    }

    /// The newest heartbeat, condition transition or property observation time under this
    /// manifest's `status` ([`Input::snapshot`] is the newest over all manifests).
    pub fn newest_time(&self) -> Option<chrono::DateTime<chrono::Utc>> {
        /// The newest time, and its text when written as `2006-01-02T15:04:05Z`.
        type Newest<'a> = (Option<chrono::DateTime<chrono::Utc>>, Option<&'a str>);
        /// Whether `t` is shaped as `2006-01-02T15:04:05Z`: two such texts of valid times
        /// compare as the times do (a valid time of this shape has digits everywhere else;
        /// an invalid one is skipped whatever it is compared with).
        fn canonical(t: &str) -> bool {
            let b = t.as_bytes();
            b.len() == 20
                && b[4] == b'-'
                && b[7] == b'-'
                && b[10] == b'T'
                && b[13] == b':'
                && b[16] == b':'
                && b[19] == b'Z'
        }
        #[cfg_attr(optimize_hot, optimize(speed))]
        fn walk<'a>(node: &'a Node, newest: &mut Newest<'a>) {
            match &node.value {
                Value::Map(entries) => {
                    for (k, v) in entries {
                        // The four names are 15, 17, 18 and 21 bytes long: the length
                        // settles most keys without comparing bytes.
                        let timed = k.as_scalar().is_some_and(|k| {
                            matches!(k.len(), 15 | 17 | 18 | 21)
                                && matches!(
                                    k,
                                    "lastReceivedHeartbeat"
                                        | "lastHeartbeatTime"
                                        | "lastTransitionTime"
                                        | "observationTime"
                                )
                        });
                        if !timed {
                            walk(v, newest);
                            continue;
                        }
                        let Some(text) = v.as_scalar() else { continue };
                        // Most times of a dump are no newer than the newest so far: written
                        // alike, that is a string comparison, not a parse (a valid time not
                        // after the newest cannot change it; an invalid one is skipped anyway).
                        if newest.1.is_some_and(|n| canonical(text) && text <= n) {
                            continue;
                        }
                        if let Ok(t) = super::rfc3339::parse(text) {
                            let t = t.to_utc();
                            if newest.0.is_none_or(|n| t > n) {
                                *newest = (Some(t), canonical(text).then_some(text));
                            }
                        }
                    }
                }
                Value::Seq(items) => items.iter().for_each(|i| walk(i, newest)),
                _ => {}
            }
        }
        let mut newest = (None, None);
        walk(self.root.get("status")?, &mut newest);
        newest.0
    }

    /// Whether this manifest is of `kind`, whose [`kinds::id`] is `id`.
    fn is_kind(&self, id: Option<u16>, kind: &str) -> bool {
        match (id, self.layout.kind) {
            (Some(a), Some(b)) => a == b,
            _ => self.kind == kind,
        }
    }

    /// `metadata` (as `root.get("metadata")`, without the key scan).
    pub fn metadata(&self) -> Option<&Node> {
        value_at(&self.root, self.layout.metadata)
    }

    /// The entries of `metadata.labels` as written; empty when it is absent or not a mapping.
    pub fn labels_map(&self) -> &[(Node, Node)] {
        self.metadata()
            .and_then(|m| value_at(m, self.layout.labels))
            .and_then(Node::as_map)
            .unwrap_or(&[])
    }

    /// `metadata.annotations` (as `root.get("metadata")?.get("annotations")`).
    pub fn annotations(&self) -> Option<&Node> {
        self.metadata()
            .and_then(|m| value_at(m, self.layout.annotations))
    }

    /// `spec` (as `root.get("spec")`, without the key scan).
    pub fn spec(&self) -> Option<&Node> {
        value_at(&self.root, self.layout.spec)
    }
}

/// Everything read from the sources: the manifests and the problems found while reading.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Input {
    /// Manifests of known kinds, in input order.
    pub documents: Vec<Document>,
    /// Problems with the YAML or with `apiVersion`/`kind`.
    pub diagnostics: Vec<Diagnostic>,
    /// `(apiVersion, kind)` of each manifest of a kind no engine reads (neighbouring kinds
    /// such as EC2NodeClass, Namespace or ClusterResourceOverride), in input order; ARM
    /// resources of other types as `("", type)`.
    pub ignored: Vec<(String, String)>,
    /// AKS clusters as `az aks show` prints them: the lower-case resource id and the facts a
    /// fleet member's `cluster` takes from them.
    pub azure_clusters: Vec<(String, Node)>,
    /// AKS maintenance configurations: the lower-case id of their cluster, and the
    /// configuration in the `cluster` extension's shape.
    pub azure_maintenance: Vec<(String, Node)>,
    /// Errors and warnings found while reading beyond [`MAX_DIAGNOSTICS`]: counted, not kept.
    pub omitted_errors: usize,
    /// See [`Input::omitted_errors`].
    pub omitted_warnings: usize,
    /// Manifests of our own group ([`OWN_GROUP`]) that no engine reads (`kind: Test`),
    /// kept for the commands that read them. Few, so keeping them costs nothing.
    pub own: Vec<Document>,
}

/// A source for [`Input::parse_read`]: a text, or what reading a text item by item gave.
#[derive(Debug)]
pub enum Read {
    /// A text to read.
    Text(Source),
    /// A source already read: its name, its size in bytes and what reading it gave.
    Items {
        /// The source's name.
        name: String,
        /// The length of its text.
        bytes: usize,
        /// What reading it gave.
        read: Input,
    },
}

/// Where an [`Input`] ended, for [`Input::truncate`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Mark {
    pub(crate) documents: usize,
    pub(crate) diagnostics: usize,
    pub(crate) ignored: usize,
    pub(crate) own: usize,
    pub(crate) clusters: usize,
    pub(crate) maintenance: usize,
    omitted: (usize, usize),
}

/// How much text one call reads, all sources together. The tree takes about 8 to 15 times the
/// text in memory, so this keeps a call within a few GB natively (and the wasm's 4 GB).
pub const MAX_INPUT_BYTES: usize = 256 << 20;

/// How many errors (and, apart, warnings) a result lists; the rest are counted in a last
/// "… and N more" entry.
pub const MAX_DIAGNOSTICS: usize = 1000;

/// The API group of our own kinds (`fleet-policy.dev/v1alpha1`).
pub const OWN_GROUP: &str = "fleet-policy.dev";

impl Input {
    /// Reads all sources. Never fails: problems become diagnostics.
    pub fn parse(sources: &[Source]) -> Input {
        let mut input = Input::default();
        let mut total = 0usize;
        for source in sources {
            if input.within_limit(&source.name, source.text.len(), &mut total) {
                read_source(source, &mut input);
            }
        }
        input.join_azure();
        input
    }

    /// [`Input::parse`] of sources of which some were read already, item by item (a file that
    /// is one `kind: List`, see [`crate::sources::read_list`]): the input reading them all as
    /// texts, in this order, gives.
    pub fn parse_read(sources: Vec<Read>) -> Input {
        let mut input = Input::default();
        let mut total = 0usize;
        for source in sources {
            match source {
                Read::Text(source) => {
                    if input.within_limit(&source.name, source.text.len(), &mut total) {
                        read_source(&source, &mut input);
                    }
                }
                Read::Items { name, bytes, read } => {
                    if input.within_limit(&name, bytes, &mut total) {
                        input.merge(read);
                    }
                }
            }
        }
        input.join_azure();
        input
    }

    /// Whether a source of `bytes` more keeps the input within [`MAX_INPUT_BYTES`]; if not,
    /// the error saying so.
    fn within_limit(&mut self, name: &str, bytes: usize, total: &mut usize) -> bool {
        *total = total.saturating_add(bytes);
        if *total <= MAX_INPUT_BYTES {
            return true;
        }
        self.diagnose(Diagnostic::in_source(
            Severity::Error,
            name,
            0,
            Span::default(),
            format!(
                "not read: the input exceeds {} MiB (about 90,000 clusters as kubectl prints them); split it",
                MAX_INPUT_BYTES >> 20
            ),
        ));
        false
    }

    /// Reads one YAML string named `input`.
    pub fn parse_str(text: &str) -> Input {
        Input::parse(&[Source::new("input", text)])
    }

    /// The manifests of one kind, in input order.
    pub fn of_kind<'a>(&'a self, kind: &'a str) -> impl Iterator<Item = &'a Document> + 'a {
        // Known kinds compare by id, which lives in the document itself: the kind strings,
        // allocated one per document, are not read.
        let id = kinds::id(kind);
        self.documents.iter().filter(move |d| d.is_kind(id, kind))
    }

    /// The manifests of each of `kinds`, in input order, found in one pass over the
    /// documents (a reader of several kinds touches each document once, not once per kind).
    pub fn of_kinds<'a, const N: usize>(&'a self, kinds: [&str; N]) -> [Vec<&'a Document>; N] {
        let ids = kinds.map(kinds::id);
        let mut out = std::array::from_fn(|_| Vec::new());
        for d in &self.documents {
            for ((kind, id), list) in kinds.iter().zip(ids).zip(out.iter_mut()) {
                if d.is_kind(id, kind) {
                    list.push(d);
                }
            }
        }
        out
    }

    /// Where this input ends now, to cut it back there with [`Input::truncate`] (the
    /// playground keeps the fleet editor's part and replaces the policy editor's).
    pub fn mark(&self) -> Mark {
        Mark {
            documents: self.documents.len(),
            diagnostics: self.diagnostics.len(),
            ignored: self.ignored.len(),
            own: self.own.len(),
            clusters: self.azure_clusters.len(),
            maintenance: self.azure_maintenance.len(),
            omitted: (self.omitted_errors, self.omitted_warnings),
        }
    }

    /// Cuts this input back to `mark`.
    pub fn truncate(&mut self, mark: Mark) {
        self.documents.truncate(mark.documents);
        self.diagnostics.truncate(mark.diagnostics);
        self.ignored.truncate(mark.ignored);
        self.own.truncate(mark.own);
        self.azure_clusters.truncate(mark.clusters);
        self.azure_maintenance.truncate(mark.maintenance);
        (self.omitted_errors, self.omitted_warnings) = mark.omitted;
    }

    /// Adds another input read separately (another editor), as if both were read together:
    /// documents, findings, neighbouring kinds, and AKS facts joined across both.
    pub fn append(&mut self, other: Input) {
        self.merge(other);
        self.join_azure();
    }

    /// Adds what `other` read after what this input read, as reading on would have added it
    /// (its findings one by one, under the cap).
    fn merge(&mut self, other: Input) {
        self.documents.extend(other.documents);
        for d in other.diagnostics {
            self.diagnose(d);
        }
        self.omitted_errors += other.omitted_errors;
        self.omitted_warnings += other.omitted_warnings;
        self.ignored.extend(other.ignored);
        self.own.extend(other.own);
        self.azure_clusters.extend(other.azure_clusters);
        self.azure_maintenance.extend(other.azure_maintenance);
    }

    /// Gives each FleetMember without `cluster` facts those of the AKS cluster (and its
    /// maintenance configurations) that its `clusterResourceId` names, as ARM compares ids:
    /// case-insensitively.
    fn join_azure(&mut self) {
        if self.azure_clusters.is_empty() && self.azure_maintenance.is_empty() {
            return;
        }
        let id = kinds::id("FleetMember");
        for doc in self
            .documents
            .iter_mut()
            .filter(|d| d.is_kind(id, "FleetMember"))
        {
            let Some(cluster_id) = doc
                .root
                .get("properties")
                .and_then(|p| p.get("clusterResourceId"))
                .and_then(Node::as_scalar)
                .map(str::to_ascii_lowercase)
            else {
                continue;
            };
            let facts = self
                .azure_clusters
                .iter()
                .find(|(id, _)| *id == cluster_id)
                .map(|(_, n)| n);
            let configs: Vec<Node> = self
                .azure_maintenance
                .iter()
                .filter(|(id, _)| *id == cluster_id)
                .map(|(_, n)| n.clone())
                .collect();
            if facts.is_some() || !configs.is_empty() {
                super::arm::attach(&mut doc.root, facts, &configs);
            }
        }
    }

    /// Records a problem found while reading. Past [`MAX_DIAGNOSTICS`] they are only counted
    /// (a million broken documents must not make a million messages).
    pub fn diagnose(&mut self, d: Diagnostic) {
        if self.diagnostics.len() < MAX_DIAGNOSTICS {
            self.diagnostics.push(d);
        } else if d.is_error() {
            self.omitted_errors += 1;
        } else {
            self.omitted_warnings += 1;
        }
    }

    /// Whether any error was found while reading.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// The instant the input was captured: its newest heartbeat, condition transition or
    /// property observation time under any manifest's `status` (what `kubectl get -o yaml`
    /// prints). `None` for hand-written input without times.
    pub fn snapshot(&self) -> Option<chrono::DateTime<chrono::Utc>> {
        self.documents
            .iter()
            .filter_map(Document::newest_time)
            .max()
    }

    /// Notices about the input as a whole: the kinds it holds that no engine reads, and those
    /// read but not modelled.
    pub fn notices(&self) -> Vec<crate::notice::Notice> {
        use crate::notice::{KindCount, Notice};
        let mut ignored: Vec<KindCount> = Vec::new();
        let mut not_modelled: Vec<KindCount> = Vec::new();
        for (api_version, kind) in &self.ignored {
            let list = if kinds::not_modelled(kind) {
                &mut not_modelled
            } else {
                &mut ignored
            };
            match list
                .iter_mut()
                .find(|k| &k.kind == kind && &k.api_version == api_version)
            {
                Some(k) => k.count += 1,
                None => list.push(KindCount {
                    kind: kind.clone(),
                    api_version: api_version.clone(),
                    count: 1,
                }),
            }
        }
        let mut out = Vec::new();
        if !not_modelled.is_empty() {
            not_modelled.sort();
            out.push(Notice::not_modelled(not_modelled));
        }
        if !ignored.is_empty() {
            ignored.sort();
            out.push(Notice::ignored(ignored));
        }
        out
    }
}

fn read_source(source: &Source, input: &mut Input) {
    // Old Mac line endings (CR alone) are line breaks to YAML: read them as such, so that the
    // document markers are found (lines and columns stay the same).
    // A UTF-8 byte order mark starts the stream, it is not part of the first key.
    let source_text = source.text.strip_prefix('\u{feff}').unwrap_or(&source.text);
    // (`memchr`: the standard `contains` took 5% of reading a 10,000-cluster JSON dump.)
    let has = |c: u8| memchr::memchr(c, source_text.as_bytes()).is_some();
    // A line feed is found at once in nearly every text; only a text without one is searched
    // whole for a CR.
    let text: std::borrow::Cow<str> = if !has(b'\n') && has(b'\r') {
        std::borrow::Cow::Owned(source_text.replace('\r', "\n"))
    } else {
        std::borrow::Cow::Borrowed(source_text)
    };
    // A `-o json` dump is one JSON value, and then one document: no line of it can be a
    // document marker (`---` and `...` are no JSON tokens and a JSON string holds no line
    // break), so its lines are not searched for markers (a tenth of reading such a dump).
    if super::json::looks_like_json(&text) {
        if let Some(tree) = super::json::parse(&text, 1) {
            let whole = Chunk {
                text: &text,
                first_line: 1,
            };
            read_chunk(&source.name, &whole, 0, Some(tree), input);
            return;
        }
    }
    read_chunks(&source.name, &split_documents(&text), 0, input);
}

/// The manifests of `kind` in `input`, the first of each name only, in their order; each later
/// one of the same API group, namespace and name gets an error on its name instead. The API
/// server holds one object of a name: a dump pasted twice, or beside a hand-written copy, must
/// not be counted twice.
#[inline(never)]
pub(crate) fn first_of_each<'a>(
    input: &'a Input,
    kind: &'a str,
    diags: &mut Vec<Diagnostic>,
) -> Vec<&'a Document> {
    let mut seen: std::collections::HashSet<(&str, &str, &str, &str)> =
        std::collections::HashSet::new();
    let mut out = Vec::new();
    for d in input.of_kind(kind) {
        let Some(name) = d.name.as_deref().filter(|n| !n.is_empty()) else {
            out.push(d);
            continue;
        };
        let group = d.api_version.split_once('/').map_or("", |(g, _)| g);
        let namespace = d
            .metadata()
            .and_then(|m| m.get("namespace"))
            .and_then(Node::as_scalar)
            .unwrap_or_default();
        // An object's identity: its API group, kind, namespace and name.
        if seen.insert((group, kind, namespace, name)) {
            out.push(d);
            continue;
        }
        let name = match namespace {
            "" => name.to_string(),
            ns => format!("{ns}/{name}"),
        };
        diags.push(repeated_object(d, &name));
    }
    out
}

/// The error on a later copy of an object already in the input (`name`, with its namespace
/// when it has one): the API server holds one object of a name, and the first is used.
pub(crate) fn repeated_object(d: &Document, name: &str) -> Diagnostic {
    d.error(
        &FieldPath::parse("metadata.name"),
        format!("duplicate {} {name:?}: only the first one is used", d.kind),
    )
}

/// Reads chunks of one source, numbering documents on from `index`; returns the number of the
/// last document read (the session re-reads only the chunks of an edited source that changed).
pub(crate) fn read_chunks(
    source: &str,
    chunks: &[Chunk<'_>],
    mut index: usize,
    input: &mut Input,
) -> usize {
    for chunk in chunks {
        index = read_chunk(source, chunk, index, None, input);
    }
    index
}

/// Reads one chunk as document `index + 1` (when it has content); `json` is its tree when the
/// JSON reader already read it. Returns the number of the last document read.
fn read_chunk(
    source: &str,
    chunk: &Chunk<'_>,
    mut index: usize,
    json: Option<(Node, Duplicates)>,
    input: &mut Input,
) -> usize {
    let refused = super::stream::forbidden_char(chunk.text, chunk.first_line)
        .map(|(span, c)| (span, super::stream::forbidden_message(c)))
        .or_else(|| {
            super::stream::unsupported_version(chunk.text, chunk.first_line).map(|(span, v)| {
                (
                    span,
                    format!("%YAML {v}: only YAML 1.x is read (as by go-yaml)"),
                )
            })
        });
    if let Some((span, message)) = refused {
        input.diagnose(Diagnostic::in_source(
            Severity::Error,
            source,
            index + 1,
            span,
            message,
        ));
        if has_content(chunk.text) {
            index += 1;
        }
        return index;
    }
    if !has_content(chunk.text) {
        return index;
    }
    let parsed = match json {
        Some((root, dups)) => Ok((Some(root), dups)),
        None => {
            // Objects one after another (`jq '.items[]'`): kubectl reads each as a manifest.
            if super::json::looks_like_json(chunk.text) {
                let broken =
                    super::json::parse_stream(chunk.text, chunk.first_line, |root, dups| {
                        index = read_root(source, index, Some(root), dups, input);
                    });
                if let Some(broken) = broken {
                    if let Some(span) = broken {
                        index += 1;
                        input.diagnose(Diagnostic::in_source(
                            Severity::Error,
                            source,
                            index,
                            span,
                            "invalid JSON: this value does not read (JSON values one after \
                             another are read as one manifest each, as kubectl reads them)"
                                .to_string(),
                        ));
                    }
                    return index;
                }
            }
            parse_text(chunk.text, chunk.first_line)
        }
    };
    match parsed {
        Ok((root, dups)) => read_root(source, index, root, dups, input),
        Err((span, msg)) => {
            let message = if opens_as_json(chunk.text) {
                in_json_words(
                    &msg,
                    msg.contains("end of stream") || ends_before(chunk, span),
                )
            } else {
                format!("invalid YAML: {msg}")
            };
            let mut d = Diagnostic::in_source(Severity::Error, source, index + 1, span, message);
            d.kind = super::stream::kind_in_text(chunk.text);
            input.diagnose(d);
            index + 1
        }
    }
}

/// The YAML reader's message about a document that opens as JSON (`kubectl … -o json`, `az …
/// -o json`), told in JSON's words: JSON is YAML's flow syntax, which the message names. A
/// text that ends inside the JSON (`cut`) is most often a paste cut short; the message says so.
fn in_json_words(msg: &str, cut: bool) -> String {
    let mut out = msg.to_string();
    for (yaml, json) in [
        (
            "while parsing a node, did not find expected node content",
            "expected a value",
        ),
        ("a flow mapping", "an object"),
        ("a flow sequence", "an array"),
        ("a quoted scalar", "a string"),
        ("flow mapping", "object"),
        ("flow sequence", "array"),
        ("end of stream", "end of the text"),
    ] {
        out = out.replace(yaml, json);
    }
    if cut {
        out.push_str(" (the text ends inside the JSON: is it cut short?)");
    }
    format!("invalid JSON: {out}")
}

/// Whether `text` opens as JSON does: `{` or `[`, then a string, a number or a bracket
/// (`{name: a}` is YAML written in flow style, and its errors are told in YAML's words).
fn opens_as_json(text: &str) -> bool {
    let mut rest = text
        .trim_start_matches([' ', '\t', '\r', '\n', '\u{feff}'])
        .bytes();
    matches!(rest.next(), Some(b'{' | b'['))
        && matches!(
            rest.find(|b| !b" \t\r\n".contains(b)),
            None | Some(b'"' | b'{' | b'[' | b'}' | b']' | b'-' | b'0'..=b'9')
        )
}

/// Whether `span` is past the last character of `chunk` that is not blank: an error
/// there is the text ending, whatever the reader expected next.
fn ends_before(chunk: &Chunk<'_>, span: Span) -> bool {
    let text = chunk.text.trim_end();
    let lines = u32::try_from(text.matches('\n').count()).unwrap_or(u32::MAX);
    let last = text.rsplit('\n').next().unwrap_or_default();
    let end = (
        chunk.first_line.saturating_add(lines),
        u32::try_from(last.chars().count()).unwrap_or(u32::MAX),
    );
    (span.line, span.column) > end
}

/// Reads a document's root (with its repeated keys) as document `index + 1`; returns the
/// number of the last document read (`index` again for an empty or null document).
fn read_root(
    source: &str,
    index: usize,
    root: Option<Node>,
    dups: Duplicates,
    input: &mut Input,
) -> usize {
    let index = index + 1;
    let mut found: Vec<Diagnostic> = dups
        .into_iter()
        .map(|(span, key)| {
            Diagnostic::in_source(
                Severity::Error,
                source,
                index,
                span,
                format!("duplicate key \"{key}\" in a mapping"),
            )
        })
        .collect();
    if let Some(root) = &root {
        super::stream::name_duplicates(&mut found, root);
    }
    for d in found {
        input.diagnose(d);
    }
    match root {
        Some(root) if !root.is_null() => {
            read_manifest(source, index, None, root, input);
            index
        }
        _ => index - 1,
    }
}

/// Reads item `item` of the `kind: List` that is document `index` (the session reads the items
/// of a large list one by one, so that an edit re-reads only the items it touched).
pub(crate) fn read_list_item(
    source: &str,
    index: usize,
    item: usize,
    root: Node,
    input: &mut Input,
) {
    read_manifest(source, index, Some(item), root, input);
}

/// Parses a YAML (or JSON) text with the reader [`read_chunks`] would use: the root node, if
/// any, and the repeated keys.
pub(crate) fn parse_text(
    text: &str,
    first_line: u32,
) -> Result<(Option<Node>, Duplicates), (Span, String)> {
    parse_text_nested(text, first_line, 0)
}

/// [`parse_text`] for a text that sits `outer` collections deep in its document: they count
/// toward the nesting limit (the block reader leaves anything past its own, far lower, depth
/// to yaml-rust2).
pub(crate) fn parse_text_nested(
    text: &str,
    first_line: u32,
    outer: usize,
) -> Result<(Option<Node>, Duplicates), (Span, String)> {
    // JSON (`-o json`) is read by the JSON reader: the same tree, several times faster. Block
    // YAML as kubectl prints it is read line by line; the rest by yaml-rust2.
    let json = super::json::looks_like_json(text)
        .then(|| super::json::parse_nested(text, first_line, outer))
        .flatten();
    match json.or_else(|| super::block::parse(text, first_line)) {
        Some((root, dups)) => Ok((Some(root), dups)),
        None => parse_yaml_with(text, first_line, false, outer),
    }
}

fn read_manifest(source: &str, index: usize, item: Option<usize>, root: Node, input: &mut Input) {
    let mut doc = Document {
        source: source.to_string(),
        index,
        item,
        api_version: String::new(),
        kind: String::new(),
        name: None,
        root,
        layout: Layout::default(),
        arm: None,
    };
    // `az … list` prints an array of ARM resources (`[]` when there are none); `az rest` on a
    // collection, the ARM envelope `{"value": [...], "nextLink": ...}`.
    if item.is_none() {
        let envelope = doc.root.as_map().filter(|m| {
            m.iter()
                .all(|(k, _)| matches!(k.as_scalar(), Some("value" | "nextLink")))
        });
        let list = match envelope {
            Some(_) => doc.root.get("value"),
            None => Some(&doc.root),
        };
        if let Some(Value::Seq(items)) = list.map(|l| &l.value) {
            if items
                .iter()
                .all(|i| i.get("apiVersion").is_none() && super::arm::arm_type(i).is_some())
            {
                if let Some(next) = doc.root.get("nextLink").filter(|l| !l.is_null()) {
                    input.diagnose(doc.warning(
                        &FieldPath::parse("nextLink"),
                        format!(
                            "only this page of the list is read: the rest is at {}",
                            next.as_scalar().unwrap_or_default()
                        ),
                    ));
                }
                let list = match envelope {
                    Some(_) => doc.root.get_mut("value").map(|v| &mut v.value),
                    None => Some(&mut doc.root.value),
                };
                if let Some(Value::Seq(items)) = list.map(|v| std::mem::replace(v, Value::Null)) {
                    for (i, node) in Vec::from(items).into_iter().enumerate() {
                        read_manifest(source, index, Some(i), node, input);
                    }
                }
                return;
            }
        }
    }
    if doc.root.as_map().is_none() {
        input.diagnose(doc.error(
            &FieldPath::root(),
            "a manifest must be a mapping with apiVersion, kind and metadata",
        ));
        return;
    }
    // An Azure resource as `az` prints it: no apiVersion, an ARM `type`.
    if doc.root.get("apiVersion").is_none() {
        if let Some(t) = super::arm::arm_type(&doc.root).map(str::to_string) {
            use super::arm::ArmKind;
            let id = doc
                .root
                .get("id")
                .and_then(Node::as_scalar)
                .map(str::to_ascii_lowercase);
            match super::arm::classify(&t) {
                ArmKind::Fleet(kind) => {
                    let (root, shape) = super::arm::fleet_document(doc.root, kind);
                    doc.root = root;
                    doc.arm = Some(shape);
                }
                ArmKind::ManagedCluster => {
                    let facts = super::arm::cluster_facts(&doc.root);
                    input.azure_clusters.push((id.unwrap_or_default(), facts));
                    return;
                }
                ArmKind::MaintenanceConfiguration => {
                    let parent = id.as_deref().and_then(super::arm::parent_cluster_id);
                    match (parent, super::arm::maintenance_configuration(&doc.root)) {
                        (Some(p), Some(c)) => input.azure_maintenance.push((p, c)),
                        _ => input.ignored.push((String::new(), t)),
                    }
                    return;
                }
                ArmKind::Other => {
                    input.ignored.push((String::new(), t));
                    return;
                }
            }
        }
    }
    doc.name = doc
        .root
        .get("metadata")
        .and_then(|m| m.get("name"))
        .and_then(Node::as_scalar)
        .map(str::to_string);
    let kind = match doc.root.get("kind").map(|k| (k, k.as_str())) {
        Some((_, Some(k))) => k.to_string(),
        Some((_, None)) => {
            input.diagnose(doc.error(&"kind".into(), "kind must be a string"));
            return;
        }
        None => {
            input.diagnose(doc.error(&FieldPath::root(), "missing required field \"kind\""));
            return;
        }
    };
    doc.kind = kind.clone();
    let api_version = match doc.root.get("apiVersion").map(Node::as_str) {
        Some(Some(v)) => v.to_string(),
        Some(None) => {
            input.diagnose(doc.error(&"apiVersion".into(), "apiVersion must be a string"));
            return;
        }
        None => {
            input.diagnose(doc.error(&FieldPath::root(), "missing required field \"apiVersion\""));
            return;
        }
    };
    doc.api_version = api_version.clone();

    if kind == "List" || kind.ends_with("List") && doc.root.get("items").is_some() {
        if item.is_some() {
            input.diagnose(doc.error(&FieldPath::root(), "a List inside a List is not supported"));
            return;
        }
        // The items are moved out of the List, not copied: a dump is mostly its items.
        let slot = (doc.root.get_mut("items"))
            .map(|v| (v.is_plain(), std::mem::replace(&mut v.value, Value::Null)));
        let items = match slot {
            Some((_, Value::Seq(items))) => Vec::from(items),
            Some((_, Value::Null)) => Vec::new(),
            Some((plain, Value::Scalar(s))) if resolve(&s, plain) == Resolved::Null => Vec::new(),
            _ => {
                input.diagnose(doc.error(&"items".into(), "items of a List must be a sequence"));
                return;
            }
        };
        // One allocation for the items' documents, not a series of doublings (each a copy).
        input.documents.reserve(items.len());
        for (i, node) in items.into_iter().enumerate() {
            read_manifest(source, index, Some(i), node, input);
        }
        return;
    }

    match kinds::check(&api_version, &kind) {
        Ok(()) => {
            leave_out_unread(&mut doc.root, &kind);
            doc.layout = Layout::of(&doc.root, &kind);
            for d in unknown_own_annotations(&doc) {
                input.diagnose(d);
            }
            input.documents.push(doc);
        }
        // A near miss of a kind we read is a typo; any other kind is a neighbour (an
        // EC2NodeClass beside a NodePool, a Namespace beside a CRP), listed once as ignored.
        Err(kinds::KindError::UnknownKind) => match kinds::near_miss(&kind) {
            Some(known) => input.diagnose(doc.error(
                &"kind".into(),
                format!("unknown kind \"{kind}\"; did you mean \"{known}\"?"),
            )),
            // Our own kinds no engine reads (`kind: Test`) are kept for the commands that
            // read them; they are not neighbours.
            None if api_version.split_once('/').map(|(g, _)| g) == Some(OWN_GROUP) => {
                leave_out_unread(&mut doc.root, &kind);
                doc.layout = Layout::of(&doc.root, &kind);
                input.own.push(doc);
            }
            None => input.ignored.push((api_version, kind)),
        },
        Err(kinds::KindError::UnsupportedVersion(expected)) => input.diagnose(doc.error(
            &"apiVersion".into(),
            format!(
                "apiVersion \"{api_version}\" is not supported for kind {kind}; use {}",
                expected.join(" or ")
            ),
        )),
    }
}

/// Leaves out of a manifest the fields its model accepts as any value and never reads:
/// `metadata.uid`, `resourceVersion`, `managedFields`… of every kind (every model reads
/// [`ObjectMeta`]), and a MemberCluster's `spec.identity`. A `kubectl get` dump holds them on
/// every object: at 50,000 MemberClusters they are 31 MB of the tree (measured). Decoding,
/// every error and every span are the same without them; a value the decoder would refuse (a
/// mapping key that is no scalar) is kept for it to report.
///
/// [`ObjectMeta`]: crate::model::meta::ObjectMeta
fn leave_out_unread(root: &mut Node, kind: &str) {
    use crate::model::meta::ObjectMeta;
    use crate::model::placement::MemberClusterSpec;
    fn leave_out(map: Option<&mut Node>, keys: &[&str]) {
        let Some(Value::Map(entries)) = map.map(|m| &mut m.value) else {
            return;
        };
        let unread = |(k, v): &(Node, Node)| {
            k.as_scalar().is_some_and(|k| keys.contains(&k)) && super::from_node::accepts_ignored(v)
        };
        let n = entries.iter().filter(|e| unread(e)).count();
        if n == 0 {
            return;
        }
        // A new slice at the smaller size: shrinking in place would keep the whole block.
        let mut kept = Vec::with_capacity(entries.len() - n);
        kept.extend(
            Vec::from(std::mem::take(entries))
                .into_iter()
                .filter(|e| !unread(e)),
        );
        *entries = kept.into_boxed_slice();
    }
    // The entries lookups find (the first with their key), as `Layout` finds them.
    let (metadata, spec) = (entry_index(root, "metadata"), entry_index(root, "spec"));
    leave_out(value_at_mut(root, metadata), ObjectMeta::IGNORED);
    if kind == "MemberCluster" {
        leave_out(value_at_mut(root, spec), MemberClusterSpec::IGNORED);
    }
}

/// "did you mean" for serde's unknown-field message ("unknown field `x`, expected one of `a`,
/// `b`"): the expected name nearest to the unknown one, when it is a near miss.
fn did_you_mean(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("unknown field `")?;
    let (unknown, expected) = rest.split_once('`')?;
    let unknown = unknown.to_ascii_lowercase();
    expected
        .split('`')
        .skip(1)
        .step_by(2)
        .map(|k| (kinds::edit_distance(&unknown, &k.to_ascii_lowercase()), k))
        .filter(|(d, k)| *d <= 2 && *d < k.len().max(3) / 2)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// The annotations of our own group (`fleet-policy.dev/…`) that the engines read.
const OWN_ANNOTATIONS: [&str; 3] = [
    crate::rollout::azure::DURATION_ANNOTATION,
    crate::disruption::candidates::PRICE_ANNOTATION,
    crate::disruption::candidates::NOMINATED_ANNOTATION,
];

/// A warning for each annotation of our own group that no engine reads: a misspelt
/// `fleet-policy.dev/update-duration` would otherwise change nothing without a word (any other
/// annotation is the user's own, and Kubernetes takes any).
fn unknown_own_annotations(doc: &Document) -> Vec<Diagnostic> {
    let Some(entries) = doc.annotations().and_then(Node::as_map) else {
        return Vec::new();
    };
    entries
        .iter()
        .filter_map(|(k, _)| k.as_scalar())
        .filter(|k| k.starts_with("fleet-policy.dev/") && !OWN_ANNOTATIONS.contains(k))
        .map(|k| {
            let near = OWN_ANNOTATIONS
                .iter()
                .map(|known| (kinds::edit_distance(k, known), known))
                .filter(|(d, _)| *d <= 3)
                .min_by_key(|(d, _)| *d);
            let mut message = format!(
                "unknown annotation {k:?}: the engines read {}",
                OWN_ANNOTATIONS.join(", ")
            );
            if let Some((_, known)) = near {
                message.push_str(&format!("; did you mean {known:?}?"));
            }
            doc.warning(&FieldPath::parse("metadata.annotations").key(k), message)
        })
        .collect()
}

/// The field a "duplicate field" decode error names (serde's message for a field given twice).
fn repeated_field(data: &super::de::DeErrorData) -> Option<&str> {
    data.message
        .strip_prefix("duplicate field `")
        .and_then(|r| r.split('`').next())
}

/// Whether `error` is a repeated field whose key is written twice in its mapping (not under
/// two aliases of one field, which only the decoder sees).
fn repeated_key(root: &Node, error: &DeError) -> bool {
    let data: &super::de::DeErrorData = error;
    let Some(dup) = repeated_field(data) else {
        return false;
    };
    root.locate(&data.path).as_map().is_some_and(|entries| {
        entries
            .iter()
            .filter(|(k, _)| k.as_scalar() == Some(dup))
            .count()
            > 1
    })
}

/// Leaves out of `root` the field a decode error names: for a repeated field, its first
/// occurrence (the last one counts, as in Go's decoders); otherwise the entry or item at
/// the error's path. False when the error names no such field (a missing field, the root).
fn leave_out(root: &mut Node, error: &DeError) -> bool {
    let data: &super::de::DeErrorData = error;
    let mut node = &mut *root;
    // A repeated field's path is the mapping holding it; any other error's is the field.
    let (path, remove) = match repeated_field(data) {
        Some(dup) => (&data.path.0[..], PathSeg::Key(dup.to_string())),
        None if data.message.starts_with("missing field") => return false,
        None => match data.path.0.split_last() {
            Some((last, parent)) => (parent, last.clone()),
            None => return false,
        },
    };
    for seg in path {
        match child(node, seg) {
            Some(n) => node = n,
            None => return false,
        }
    }
    // The first entry of a repeated key goes (the last one counts); otherwise the one there.
    match (remove, &mut node.value) {
        (PathSeg::Key(k), Value::Map(entries)) => {
            match entries
                .iter()
                .position(|(key, _)| key.as_scalar() == Some(k.as_str()))
            {
                Some(i) => {
                    super::node::remove(entries, i);
                    true
                }
                None => false,
            }
        }
        (PathSeg::Index(i), Value::Seq(items)) if i < items.len() => {
            super::node::remove(items, i);
            true
        }
        _ => false,
    }
}

/// The child of `node` at `seg` (a mapping's first entry of that key, or a list item).
fn child<'n>(node: &'n mut Node, seg: &PathSeg) -> Option<&'n mut Node> {
    match (seg, &mut node.value) {
        (PathSeg::Key(k), Value::Map(entries)) => entries
            .iter_mut()
            .find(|(key, _)| key.as_scalar() == Some(k.as_str()))
            .map(|(_, v)| v),
        (PathSeg::Index(i), Value::Seq(items)) => items.get_mut(*i),
        _ => None,
    }
}

/// go-yaml v2's message for a merge key whose value is not a mapping or a list of them.
const MERGE_ERROR: &str = "map merge requires map or sequence of maps as the value";

/// A merge key: `<<` written plain (quoted, it is an ordinary key).
fn is_merge_key(key: &Node) -> bool {
    key.is_plain() && key.as_scalar() == Some("<<")
}

/// The entries of a mapping with its merge keys applied as go-yaml v2 applies them into an
/// untyped value (what sigs.k8s.io/yaml reads): in order, each entry sets its key, a `<<: map`
/// sets each of that map's keys, and `<<: [maps]` sets the last map's keys first so that the
/// earlier ones win. A key set again takes the new value where it first was. `Err` is where a
/// merge value is not a mapping or a list of them.
#[cold]
fn merge_keys(entries: Vec<(Node, Node)>) -> Result<Vec<(Node, Node)>, Span> {
    let mut out: Vec<(Node, Node)> = Vec::with_capacity(entries.len());
    let mut set = |key: Node, value: Node| {
        let same = |k: &Node| k.as_scalar().is_some() && k.as_scalar() == key.as_scalar();
        match out.iter_mut().find(|(k, _)| same(k)) {
            Some(entry) => entry.1 = value,
            None => out.push((key, value)),
        }
    };
    for (key, value) in entries {
        if !is_merge_key(&key) {
            set(key, value);
            continue;
        }
        let maps = match value.value {
            Value::Seq(items) => Vec::from(items),
            _ => vec![value],
        };
        for map in maps.into_iter().rev() {
            let at = map.span();
            let Value::Map(m) = map.value else {
                return Err(at);
            };
            for (k, v) in Vec::from(m) {
                set(k, v);
            }
        }
    }
    Ok(out)
}

pub(crate) struct Chunk<'a> {
    pub(crate) text: &'a str,
    /// 1-based line of the chunk's first line in the source.
    pub(crate) first_line: u32,
}

/// Splits a stream at `---` document markers written at the start of a line, and after `...`
/// document end markers (a document may follow one without `---`).
/// Whether the line at `at` of `b` is a document marker `head` (`---` or `...`): the three
/// characters alone on their line or before a space (or a comment, when `comment`: after
/// `...`).
pub(crate) fn is_marker(b: &[u8], at: usize, head: &[u8], comment: bool) -> bool {
    b.get(at..at + 3) == Some(head)
        && match b.get(at + 3) {
            None | Some(b' ' | b'\t' | b'\n' | b'\r') => true,
            Some(b'#') => comment,
            _ => false,
        }
}

pub(crate) fn split_documents(text: &str) -> Vec<Chunk<'_>> {
    let b = text.as_bytes();
    let mut chunks = Vec::new();
    let mut start = 0;
    let mut start_line = 1u32;
    let marker = |at: usize, head: &[u8], comment: bool| is_marker(b, at, head, comment);
    let line_starts = std::iter::once(0).chain(
        memchr::memchr_iter(b'\n', b)
            .map(|i| i + 1)
            .filter(|&i| i < b.len()),
    );
    for (line_no, offset) in (1u32..).zip(line_starts) {
        if !matches!(b.get(offset), Some(b'-' | b'.')) {
            continue;
        }
        if marker(offset, b"---", false) && offset > start {
            chunks.push(Chunk {
                text: &text[start..offset],
                first_line: start_line,
            });
            start = offset;
            start_line = line_no;
        }
        if marker(offset, b"...", true) {
            let end = memchr::memchr(b'\n', &b[offset..]).map_or(b.len(), |e| offset + e + 1);
            chunks.push(Chunk {
                text: &text[start..end],
                first_line: start_line,
            });
            start = end;
            start_line = line_no + 1;
        }
    }
    chunks.push(Chunk {
        text: &text[start..],
        first_line: start_line,
    });
    chunks
}

/// Whether a chunk holds anything besides blank lines, comments, markers and directives.
fn has_content(chunk: &str) -> bool {
    chunk.lines().any(|l| {
        let t = l.trim();
        !(t.is_empty() || t.starts_with('#') || t.starts_with('%') || t == "---" || t == "...")
            || (l.starts_with("---") && t.len() > 3 && !t[3..].trim_start().starts_with('#'))
    })
}

/// Parses a single-document YAML text of any shape (not a manifest) into JSON, for test
/// fixtures and tools. Errors carry line:column.
pub fn yaml_to_json(text: &str) -> Result<serde_json::Value, String> {
    json_of(parse_yaml_with(text, 1, true, 0))
}

/// The JSON of one YAML document as the engine reads a manifest's text (the line reader,
/// yaml-rust2 for the rest), for the Go oracle; errors carry line:column.
pub fn read_to_json(text: &str) -> Result<serde_json::Value, String> {
    json_of(parse_text(text, 1))
}

/// A parsed document as JSON (none: `null`), or its error as `line:column: message`.
fn json_of(
    parsed: Result<(Option<Node>, Duplicates), (Span, String)>,
) -> Result<serde_json::Value, String> {
    match parsed {
        Ok((Some(root), _)) => Ok(root.to_json()),
        Ok((None, _)) => Ok(serde_json::Value::Null),
        Err((span, msg)) => Err(format!("{}:{}: {msg}", span.line, span.column)),
    }
}

type Duplicates = Vec<(Span, String)>;

/// Parses one YAML document with yaml-rust2 alone, as the other readers must read it (the
/// differential tests compare them with it).
#[cfg(test)]
pub(crate) fn parse_yaml(
    text: &str,
    first_line: u32,
) -> Result<(Option<Node>, Duplicates), (Span, String)> {
    parse_yaml_with(text, first_line, false, 0)
}

/// Parses one YAML document with yaml-rust2 into a [`Node`] tree with absolute line numbers,
/// as every reader of manifests builds it (without the text of values no engine reads, unless
/// `keep_unread`); `outer` collections around the text count toward the nesting limit.
fn parse_yaml_with(
    text: &str,
    first_line: u32,
    keep_unread: bool,
    outer: usize,
) -> Result<(Option<Node>, Duplicates), (Span, String)> {
    let mut builder = Builder {
        text,
        keep_unread,
        outer,
        line_offset: first_line.saturating_sub(1),
        alias_limit: ALIAS_NODES_MIN.max(text.len()),
        alias_budget: ALIAS_NODES_MIN.max(text.len()),
        ..Builder::default()
    };
    let mut parser = Parser::new_from_str(text);
    if let Err(e) = build(&mut parser, &mut builder) {
        let m = e.marker();
        let at = end_at(text, first_line, m.line()).unwrap_or(builder.span(m));
        return Err((at, e.info().to_string()));
    }
    if let Some((span, msg)) = builder.error {
        // The alias's name, read back from the text (the parser only numbers anchors).
        let msg = match builder.alias_at {
            Some(at) => msg.replace("{alias}", &alias_name(text, at)),
            None => msg,
        };
        return Err((span, msg));
    }
    Ok((builder.root, builder.duplicates))
}

/// Where an error yaml-rust2 marks on `line` (of the text) is shown when that line is past
/// the text's last non-blank line (an unclosed flow collection, a missing quote): just after
/// the last non-blank character, on the line go-yaml names, not on a line past the text.
#[cold]
fn end_at(text: &str, first_line: u32, line: usize) -> Option<Span> {
    let (n, last) = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .last()?;
    (line > n + 1).then(|| Span {
        line: first_line + n as u32,
        column: last.trim_end().chars().count() as u32 + 1,
    })
}

/// Feeds the first document's events to the builder, iteratively: yaml-rust2's own `load`
/// recurses once per nesting level (a deep document overflows the stack before any limit of
/// ours applies) and asserts on the event order.
fn build(
    parser: &mut Parser<std::str::Chars<'_>>,
    builder: &mut Builder,
) -> Result<(), yaml_rust2::ScanError> {
    loop {
        let (ev, mark) = parser.next_token()?;
        match ev {
            Event::StreamEnd | Event::DocumentEnd => return Ok(()),
            Event::StreamStart | Event::DocumentStart | Event::Nothing => {}
            ev => builder.on_event(ev, mark),
        }
        if builder.error.is_some() {
            return Ok(());
        }
    }
}

/// How deep collections may nest. Every reader of the tree (decoding, dropping it) recurses
/// per level, and the wasm stack holds a few thousand levels: 1,000 is far beyond any
/// manifest (kubectl dumps nest about 15 deep) and safely within the stack.
pub const MAX_DEPTH: usize = 1000;

/// Nodes that aliases may copy into one document at least; more for a larger document (its
/// size in bytes). An alias is a copy of its anchor's node, so nested aliases multiply
/// ("billion laughs"): a 1 KB document could otherwise expand to gigabytes.
pub const ALIAS_NODES_MIN: usize = 100_000;

/// `*name` at char offset `at` in `text`: the alias's name.
fn alias_name(text: &str, at: usize) -> String {
    let rest: String = text.chars().skip(at).take(256).collect();
    let name: String = rest
        .trim_start_matches('*')
        .chars()
        .take_while(|c| !c.is_whitespace() && !matches!(c, ',' | ']' | '}'))
        .collect();
    format!("*{name}")
}

/// How far back an empty node's line is looked for; on a longer line the node keeps the
/// parser's place (the next token's).
const LINE_LOOKBACK: usize = 1024;

/// What may come just before an empty node: the indicators of a mapping value or key, a
/// sequence entry, a flow entry or collection start, and a document start (`---`).
const EMPTY_NODE_INDICATORS: [char; 6] = ['-', ':', '?', ',', '[', '{'];

/// A line without its comment, for a line that ends in an indicator or an anchor or tag
/// (`key: # note`). `#` starts a comment after a blank; the first such `#` whose text before
/// ends like that is taken, so a `#` inside an earlier quoted key is passed over.
fn without_comment(line: &str) -> &str {
    for (p, _) in line.match_indices('#') {
        let before = &line[..p];
        if p > 0 && !before.ends_with([' ', '\t']) {
            continue;
        }
        let before = before.trim_end_matches([' ', '\t']);
        let last_word = before.rsplit([' ', '\t']).next().unwrap_or_default();
        if before.is_empty()
            || before.ends_with(EMPTY_NODE_INDICATORS)
            || last_word.starts_with(['&', '!'])
        {
            return before;
        }
    }
    line.trim_end_matches([' ', '\t'])
}

/// An open collection: where it starts, its anchor, and where its children begin in the
/// builder's shared scratch stacks; for a mapping, the key waiting for its value and, once
/// the mapping is large, the set of its keys (the duplicate check stays linear).
enum Frame {
    Seq(Span, usize, usize, usize),
    Map(Span, usize, usize, Option<Node>, usize, RepeatedKeys),
}

/// Finds repeated keys of one mapping being built: small mappings are scanned, a large one
/// keeps a set of its keys (the check stays linear in the mapping's size).
#[derive(Default)]
pub(crate) struct RepeatedKeys(Option<std::collections::HashSet<String>>);

impl RepeatedKeys {
    /// Whether `key` is among the keys of `entries` (the mapping's entries so far).
    #[cfg_attr(optimize_hot, optimize(speed))]
    pub(crate) fn check(&mut self, entries: &[(Node, Node)], key: &str) -> bool {
        const SCAN: usize = 16;
        match &mut self.0 {
            Some(set) => !set.insert(key.to_string()),
            None if entries.len() < SCAN => entries
                .iter()
                .any(|(k, _)| k.as_scalar().is_some_and(|k| super::bytes::same(k, key))),
            None => {
                let mut set: std::collections::HashSet<String> = entries
                    .iter()
                    .filter_map(|(k, _)| k.as_scalar().map(str::to_string))
                    .collect();
                let repeated = !set.insert(key.to_string());
                self.0 = Some(set);
                repeated
            }
        }
    }
}

/// Builds the [`Node`] tree from parser events. Children of open collections wait on two
/// shared stacks and move into an exactly sized `Vec` when their collection ends, so a
/// document costs one allocation per collection instead of a series of regrowths.
#[derive(Default)]
struct Builder<'a> {
    text: &'a str,
    /// A char offset in `text` and its byte offset (the parser counts chars), moved forward
    /// as empty nodes are placed, so placing them all stays linear.
    cursor: (usize, usize),
    line_offset: u32,
    stack: Vec<Frame>,
    /// Collections around the text in its document (a list item read on its own): they count
    /// toward [`MAX_DEPTH`].
    outer: usize,
    items: Vec<Node>,
    entries: Vec<(Node, Node)>,
    root: Option<Node>,
    /// The node of each anchor by its id (the parser numbers anchors 1, 2, … in order), and
    /// how many nodes it holds.
    anchors: Vec<Option<(Node, usize)>>,
    duplicates: Duplicates,
    error: Option<(Span, String)>,
    /// Nodes built so far (for subtree sizes).
    nodes: usize,
    /// Nodes aliases may copy in this document, and how many they still may.
    alias_limit: usize,
    alias_budget: usize,
    /// Char offset of the alias that went over the budget.
    alias_at: Option<usize>,
    /// Keep the text of values no engine reads ([`super::node::forget_unread`]): for
    /// [`yaml_to_json`], which converts any YAML faithfully.
    keep_unread: bool,
}

impl Builder<'_> {
    /// Records the node of anchor `id`.
    fn anchor(&mut self, id: usize, node: &Node, size: usize) {
        if self.anchors.len() <= id {
            self.anchors.resize_with(id + 1, || None);
        }
        if let Some(slot) = self.anchors.get_mut(id) {
            *slot = Some((node.clone(), size));
        }
    }

    fn span(&self, m: &Marker) -> Span {
        Span {
            line: m.line() as u32 + self.line_offset,
            column: m.col() as u32 + 1,
        }
    }

    /// Where go-yaml places an empty node (`key:` or `- ` with nothing after it): just after
    /// its indicator, or at its anchor or tag when it has one. yaml-rust2 places it at the
    /// next token, which can be lines further on, or past the end of the text. `None` where
    /// the text before that token is not an indicator (the parser's place then stands).
    /// `key` when the node is a mapping's key: an empty key written as `: value` is marked at
    /// its colon by both parsers.
    fn empty_node_at(&mut self, mark: &Marker, decorated: bool, key: bool) -> Option<Span> {
        let at = mark.index();
        if at < self.cursor.0 {
            self.cursor = (0, 0);
        }
        let (chars, bytes) = self.cursor;
        let byte = bytes
            + self
                .text
                .get(bytes..)?
                .char_indices()
                .nth(at - chars)
                .map_or(self.text.len() - bytes, |(b, _)| b);
        self.cursor = (at, byte);
        if key && self.text[byte..].starts_with(':') {
            return None;
        }
        // In a flow mapping (`{a: }`) yaml-rust2 places an empty value at its own colon.
        let line_start = self.line_start(byte)?;
        let before = self.text.get(line_start..byte)?;
        let written = before.trim_end_matches([' ', '\t']);
        if self.text[byte..].starts_with(':')
            && !written.is_empty()
            && !written.ends_with(EMPTY_NODE_INDICATORS)
        {
            return Some(Span {
                line: mark.line() as u32 + self.line_offset,
                column: before.chars().count() as u32 + 2,
            });
        }
        let mut end = byte;
        let mut line = mark.line();
        let mut first = true;
        loop {
            let start = self.line_start(end)?;
            let segment = self.text.get(start..end)?;
            let content = without_comment(segment.strip_suffix('\r').unwrap_or(segment));
            // A next item's `-` is a token that yaml-rust2 places after itself (and after
            // the blanks and comment that follow it): it is not this node's indicator.
            let next_entry = first && content.trim_start_matches([' ', '\t']) == "-";
            first = false;
            if content.is_empty() || next_entry {
                end = start.checked_sub(1)?;
                line = line.checked_sub(1)?;
                continue;
            }
            let col = if decorated {
                // The first of the anchor and tag words that end the content.
                let mut from = content.len();
                for word in content.rsplit([' ', '\t']) {
                    if !word.starts_with(['&', '!']) {
                        break;
                    }
                    from = content[..from].trim_end_matches([' ', '\t']).len() - word.len();
                }
                (from < content.len()).then(|| content[..from].chars().count())?
            } else {
                content
                    .ends_with(EMPTY_NODE_INDICATORS)
                    .then(|| content.chars().count())?
            };
            return Some(Span {
                line: line as u32 + self.line_offset,
                column: col as u32 + 1,
            });
        }
    }

    /// The start of the line that byte `end` is on. Only the last [`LINE_LOOKBACK`] bytes
    /// are looked at: many empty nodes on one long line (`{a, b, …}`) stay linear.
    fn line_start(&self, end: usize) -> Option<usize> {
        let mut from = end.saturating_sub(LINE_LOOKBACK);
        while !self.text.is_char_boundary(from) {
            from -= 1;
        }
        match self.text.get(from..end)?.rfind('\n') {
            Some(i) => Some(from + i + 1),
            None => (from == 0).then_some(0),
        }
    }

    fn push_value(&mut self, node: Node) {
        match self.stack.last_mut() {
            None => {
                if self.root.is_none() {
                    self.root = Some(node);
                }
            }
            Some(Frame::Seq(..)) => self.items.push(node),
            Some(Frame::Map(_, _, start, pending, _, keys)) => match pending.take() {
                None => *pending = Some(node),
                Some(key) => {
                    // Merge keys may repeat: each merges its mappings (go-yaml v2).
                    if let Some(k) = key.as_scalar().filter(|_| !is_merge_key(&key)) {
                        let open = self.entries.get(*start..).unwrap_or_default();
                        if keys.check(open, k) {
                            self.duplicates.push((key.span(), k.to_string()));
                        }
                    }
                    let mut node = node;
                    if !self.keep_unread {
                        super::node::forget_unread(&key, &mut node);
                    }
                    self.entries.push((key, node));
                }
            },
        }
    }
}

impl MarkedEventReceiver for Builder<'_> {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        // After an error the rest of the document is not built (the parser still reads it).
        if self.error.is_some() {
            return;
        }
        let span = self.span(&mark);
        if matches!(ev, Event::SequenceStart(..) | Event::MappingStart(..))
            && self.stack.len() + self.outer >= MAX_DEPTH
        {
            self.error = Some((
                span,
                format!("collections nest deeper than {MAX_DEPTH} levels"),
            ));
            return;
        }
        match ev {
            Event::Scalar(text, style, anchor, tag) => {
                let plain = style == TScalarStyle::Plain;
                // Only an empty node is a plain scalar without text.
                let span = if plain && text.is_empty() {
                    let decorated = anchor > 0 || tag.is_some();
                    let key = matches!(self.stack.last(), Some(Frame::Map(_, _, _, None, ..)));
                    self.empty_node_at(&mark, decorated, key).unwrap_or(span)
                } else {
                    span
                };
                let node = match tag {
                    Some(tag) => {
                        match super::tags::tagged_scalar(&tag.handle, &tag.suffix, text, span) {
                            Ok(node) => node,
                            Err(message) => {
                                self.error = Some((span, message));
                                return;
                            }
                        }
                    }
                    None if plain && (text.is_empty() || text == "~" || text == "null") => {
                        Node::new(Value::Null, span)
                    }
                    None => Node::scalar(text, plain, span),
                };
                self.nodes += 1;
                if anchor > 0 {
                    self.anchor(anchor, &node, 1);
                }
                self.push_value(node);
            }
            Event::SequenceStart(anchor, _) => {
                self.stack
                    .push(Frame::Seq(span, anchor, self.items.len(), self.nodes))
            }
            Event::MappingStart(anchor, _) => self.stack.push(Frame::Map(
                span,
                anchor,
                self.entries.len(),
                None,
                self.nodes,
                RepeatedKeys::default(),
            )),
            Event::SequenceEnd | Event::MappingEnd => {
                let node = match self.stack.pop() {
                    // The parser marks block collections at a look-ahead token; the first
                    // item or key is where the user sees the collection start.
                    Some(Frame::Seq(span, anchor, start, first)) => {
                        let items: Box<[Node]> =
                            self.items.drain(start.min(self.items.len())..).collect();
                        let span = items.first().map_or(span, |n| n.span().min(span));
                        (Node::new(Value::Seq(items), span), anchor, first)
                    }
                    Some(Frame::Map(span, anchor, start, _, first, _)) => {
                        let mut entries: Vec<(Node, Node)> = self
                            .entries
                            .drain(start.min(self.entries.len())..)
                            .collect();
                        let span = entries.first().map_or(span, |(k, _)| k.span().min(span));
                        if entries.iter().any(|(k, _)| is_merge_key(k)) {
                            match merge_keys(entries) {
                                Ok(merged) => entries = merged,
                                Err(at) => {
                                    self.error = Some((at, MERGE_ERROR.to_string()));
                                    return;
                                }
                            }
                        }
                        (Node::new(Value::Map(entries.into()), span), anchor, first)
                    }
                    None => return,
                };
                self.nodes += 1;
                if node.1 > 0 {
                    let size = self.nodes - node.2;
                    self.anchor(node.1, &node.0, size);
                }
                self.push_value(node.0);
            }
            Event::Alias(id) => match self.anchors.get(id).and_then(Option::as_ref) {
                Some((_, size)) if *size > self.alias_budget => {
                    self.alias_at = Some(mark.index());
                    self.error = Some((
                        span,
                        format!(
                            "alias {{alias}} would copy {size} more nodes, over the budget of {} nodes that aliases may copy into this document: nested aliases multiply",
                            self.alias_limit
                        ),
                    ));
                }
                Some((n, size)) => {
                    self.alias_budget -= size;
                    self.nodes += size;
                    let mut n = n.clone();
                    n.set_span(span);
                    self.push_value(n);
                }
                None => {
                    if self.error.is_none() {
                        self.error = Some((span, "alias to an unknown anchor".to_string()));
                    }
                }
            },
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The snapshot instant is the newest valid time under `status`, whatever its form:
    /// times written alike are compared as text, the others parsed.
    #[test]
    fn snapshot_is_the_newest_time_in_any_form() {
        let doc = |times: &[&str]| {
            let conditions: String = times
                .iter()
                .map(|t| {
                    format!(
                        "    - {{type: Joined, status: \"True\", lastTransitionTime: \"{t}\"}}\n"
                    )
                })
                .collect();
            format!("apiVersion: cluster.kubernetes-fleet.io/v1beta1\nkind: MemberCluster\nmetadata:\n  name: a\nstatus:\n  conditions:\n{conditions}")
        };
        let newest = |times: &[&str]| {
            Input::parse_str(&doc(times))
                .snapshot()
                .map(|t| t.to_rfc3339())
        };
        let cases: [(&[&str], Option<&str>); 4] = [
            (
                &[
                    "2026-01-01T00:00:00Z",
                    "2026-01-01T01:00:00+02:00",
                    "2026-01-02T00:00:00.5Z",
                    "2026-01-01T12:00:00Z",
                    "2026-01-01T23:00:00Z",
                ],
                Some("2026-01-02T00:00:00.500+00:00"),
            ),
            // An invalid time that sorts after the newest is skipped, not taken.
            (
                &[
                    "2026-01-01T00:00:00Z",
                    "2026-13-01T00:00:00Z",
                    "2025-12-31T00:00:00Z",
                ],
                Some("2026-01-01T00:00:00+00:00"),
            ),
            (
                &["2026-01-01T00:00:00+01:00", "2025-12-31T23:30:00Z"],
                Some("2025-12-31T23:30:00+00:00"),
            ),
            (&["not a time"], None),
        ];
        for (times, expected) in cases {
            assert_eq!(newest(times).as_deref(), expected, "{times:?}");
        }
    }

    /// The fields no model reads (`metadata.uid`, `managedFields`…, a MemberCluster's
    /// `spec.identity`) are not kept, whichever reader read them; the manifest decodes as the
    /// whole tree does, its lookups and spans are the same, and a value the decoder refuses is
    /// kept and refused at its line:column.
    #[test]
    fn fields_no_model_reads_are_not_kept() {
        use crate::model::placement::{ClusterResourcePlacement, MemberCluster};
        let member = "apiVersion: cluster.kubernetes-fleet.io/v1beta1\nkind: MemberCluster\nmetadata:\n  uid: 3f1c2d9e-5b7a-4c1e-9a0f-000000000001\n  name: a\n  resourceVersion: \"7\"\n  generation: 1\n  finalizers:\n  - kubernetes-fleet.io/membercluster-finalizer\n  managedFields:\n  - manager: kubectl\n    fieldsV1: {f:spec: {}}\n  labels:\n    env: prod\n  annotations:\n    note: kept\nspec:\n  identity:\n    kind: ServiceAccount\n    name: fleet-member-agent-a\n  heartbeatPeriodSeconds: 60\n  taints:\n  - key: k\n    effect: NoSchedule\n";
        let json = "{\"apiVersion\": \"cluster.kubernetes-fleet.io/v1beta1\", \"kind\": \"MemberCluster\",\n \"metadata\": {\"uid\": \"u\", \"name\": \"a\", \"generation\": 1, \"labels\": {\"env\": \"prod\"}, \"annotations\": {\"note\": \"kept\"}},\n \"spec\": {\"identity\": {\"kind\": \"User\"}, \"heartbeatPeriodSeconds\": 60, \"taints\": [{\"key\": \"k\", \"effect\": \"NoSchedule\"}]}}\n";
        let keys = |n: Option<&Node>| -> Vec<String> {
            n.and_then(Node::as_map)
                .unwrap_or_default()
                .iter()
                .filter_map(|(k, _)| k.as_scalar().map(str::to_string))
                .collect()
        };
        for text in [member, json] {
            let input = Input::parse_str(text);
            assert!(!input.has_errors(), "{:?}", input.diagnostics);
            let doc = &input.documents[0];
            assert_eq!(
                keys(doc.metadata()),
                ["name", "labels", "annotations"],
                "{text}"
            );
            assert_eq!(
                keys(doc.spec()),
                ["heartbeatPeriodSeconds", "taints"],
                "{text}"
            );
            assert_eq!(doc.labels().collect::<Vec<_>>(), [("env", "prod")]);
            // The same model as from the whole tree, with the same spans.
            let whole = parse_text(text, 1).ok().and_then(|r| r.0).expect("read");
            assert_eq!(
                doc.decode::<MemberCluster>().ok(),
                MemberCluster::from_node(&whole).ok(),
                "{text}"
            );
            let at = |root: &Node, path: &str| {
                let n = root.locate(&path.into());
                (n.as_scalar().map(str::to_string), n.span())
            };
            for path in ["spec.taints[0].effect", "metadata.annotations.note"] {
                assert_eq!(at(&doc.root, path), at(&whole, path), "{path}");
            }
            assert_eq!(
                doc.annotations()
                    .and_then(|a| a.get("note"))
                    .map(Node::span),
                Some(at(&whole, "metadata.annotations.note").1)
            );
        }
        // Every kind's metadata; `spec.identity` is a MemberCluster's only.
        let crp = "apiVersion: placement.kubernetes-fleet.io/v1beta1\nkind: ClusterResourcePlacement\nmetadata:\n  name: web\n  uid: u\n  generation: 3\nspec:\n  resourceSelectors: []\n";
        let input = Input::parse_str(crp);
        assert_eq!(keys(input.documents[0].metadata()), ["name"]);
        assert!(input.documents[0]
            .decode::<ClusterResourcePlacement>()
            .is_ok());
        // A mapping key that is no scalar: refused by the decoder, so kept for it.
        let bad = "apiVersion: cluster.kubernetes-fleet.io/v1beta1\nkind: MemberCluster\nmetadata:\n  name: a\n  managedFields:\n  - ? [x]\n    : y\n";
        let input = Input::parse_str(bad);
        let doc = &input.documents[0];
        assert_eq!(keys(doc.metadata()), ["name", "managedFields"]);
        let err = doc.decode::<MemberCluster>().expect_err("refused");
        assert_eq!(
            err.to_string(),
            "error: input:6:7: document 1 (MemberCluster a), metadata.managedFields[0][\"\"]: expected a string key, found a list"
        );
    }

    /// kubectl's last-applied annotation (the object again, as JSON) is not kept by any
    /// reader: the entry and its line:column stay, its quoted text is dropped; other
    /// annotations, and a plain value (typed by its text), are kept.
    #[test]
    fn last_applied_text_is_not_kept_by_any_reader() {
        let block = "apiVersion: cluster.kubernetes-fleet.io/v1beta1\nkind: MemberCluster\nmetadata:\n  name: a\n  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: |\n      {\"kind\":\"MemberCluster\"}\n    other: \"kept\"\n";
        let flow = "apiVersion: cluster.kubernetes-fleet.io/v1beta1\nkind: MemberCluster\nmetadata: {name: a, annotations: {kubectl.kubernetes.io/last-applied-configuration: '{}', other: kept}}\n";
        let json = "{\"apiVersion\": \"cluster.kubernetes-fleet.io/v1beta1\", \"kind\": \"MemberCluster\", \"metadata\": {\"name\": \"a\",\n \"annotations\": {\"kubectl.kubernetes.io/last-applied-configuration\": \"{\\\"a\\\": 1}\", \"other\": \"kept\"}}}\n";
        let plain = "apiVersion: cluster.kubernetes-fleet.io/v1beta1\nkind: MemberCluster\nmetadata:\n  name: a\n  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: 12\n    other: kept\n";
        for (text, at, kept) in [
            (block, (7, 7), ""),
            (flow, (3, 85), ""),
            (json, (2, 70), ""),
            (plain, (6, 55), "12"),
        ] {
            let input = Input::parse_str(text);
            assert!(!input.has_errors(), "{text}");
            let annotations = input.documents[0]
                .root
                .get("metadata")
                .and_then(|m| m.get("annotations"))
                .expect("annotations");
            let value = annotations
                .get("kubectl.kubernetes.io/last-applied-configuration")
                .expect("the entry stays");
            assert_eq!(value.as_scalar(), Some(kept), "{text}");
            assert_eq!((value.span().line, value.span().column), at, "{text}");
            assert_eq!(
                annotations.get("other").and_then(Node::as_scalar),
                Some("kept")
            );
        }
        // `yaml_to_json` (fixtures, tools) converts any YAML faithfully: it keeps the text.
        let json = yaml_to_json(block).unwrap_or_default();
        assert_eq!(
            json["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"],
            "{\"kind\":\"MemberCluster\"}\n"
        );
    }

    /// Hostile input stays bounded: nesting past the depth limit and aliases that multiply are
    /// errors at their line:column (the alias named), not a stack overflow or gigabytes.
    #[test]
    fn depth_and_alias_budgets() {
        let deep = format!("{}x\n", "- ".repeat(20_000));
        let e = yaml_to_json(&deep).err();
        assert_eq!(
            e.as_deref(),
            Some("1:2001: collections nest deeper than 1000 levels")
        );
        let at_limit = format!("{}x\n", "- ".repeat(MAX_DEPTH));
        assert!(yaml_to_json(&at_limit).is_ok());
        let mut bomb = vec!["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]".to_string()];
        for i in 1..10 {
            bomb.push(format!(
                "a{i}: &a{i} [{}]",
                vec![format!("*a{}", i - 1); 9].join(", ")
            ));
        }
        let e = yaml_to_json(&bomb.join("\n")).err();
        assert_eq!(
            e.as_deref(),
            Some("6:10: alias *a4 would copy 66430 more nodes, over the budget of 100000 nodes that aliases may copy into this document: nested aliases multiply")
        );
    }

    /// No document is dropped: one after a `...` end marker without `---`, and documents of a
    /// file with CR-only line endings, are read, each at its own line.
    #[test]
    fn documents_after_end_markers_and_cr_line_endings_are_read() {
        let mc = |n: &str| {
            format!("apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {{name: {n}}}\n")
        };
        let text = format!("{}...\n{}---\n{}", mc("a"), mc("b"), mc("c"));
        let names = |input: &Input| -> Vec<(String, u32)> {
            input
                .documents
                .iter()
                .map(|d| (d.name.clone().unwrap_or_default(), d.root.span().line))
                .collect()
        };
        let input = Input::parse_str(&text);
        assert_eq!(input.diagnostics, Vec::new());
        assert_eq!(
            names(&input),
            [("a".into(), 1), ("b".into(), 5), ("c".into(), 9)]
        );
        let cr = Input::parse_str(&format!("{}---\n{}", mc("a"), mc("b")).replace('\n', "\r"));
        assert_eq!(names(&cr), [("a".into(), 1), ("b".into(), 5)]);
    }

    /// A text that is one JSON value is read whole, without looking for document markers:
    /// documents, spans and findings are those of reading it document by document, and a
    /// text that is more than one JSON value (a marker, a comment, a second document after
    /// it) is still split.
    #[test]
    fn a_json_text_read_whole_equals_it_read_document_by_document() {
        let mc = |name: &str, label: &str| {
            format!("{{\n  \"apiVersion\": \"cluster.kubernetes-fleet.io/v1\",\n  \"kind\": \"MemberCluster\",\n  \"metadata\": {{\"name\": \"{name}\", \"labels\": {{\"env\": \"{label}\"}}}}\n}}")
        };
        let list = format!(
            "{{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [\n{},\n{}\n]}}\n",
            mc("a", "prod"),
            mc("b", "dev")
        );
        let texts = [
            list.clone(),
            format!("  \n{}", mc("a", "prod")),
            mc("a", "prod").replace('\n', "\r\n"),
            // Refused by YAML although JSON takes it: the error and its line:column stay.
            mc("a", "pr\u{86}od"),
            mc("a", "pr\u{85}od"),
            // A repeated key and a repeated name.
            format!("[{}, {}]", mc("a", "x"), mc("a", "y")).replace("\"env\"", "\"env\": \"1\", \"env\""),
            // More than one JSON value: split at the markers, as before.
            format!("{}\n---\n{}\n", mc("a", "prod"), mc("b", "dev")),
            format!("{}\n...\n{}\n", mc("a", "prod"), mc("b", "dev")),
            format!("{}\n# a comment\n", mc("a", "prod")),
            format!("{}\n---\nkind: Broken\n", mc("a", "prod")),
            format!("{} trailing", mc("a", "prod")),
            "[{\"type\": \"Microsoft.ContainerService/fleets/members\", \"name\": \"m\", \"clusterResourceId\": \"/x/managedClusters/AKS\"}]".to_string(),
        ];
        for text in &texts {
            let whole = Input::parse(&[Source::new("s", text.as_str())]);
            let mut split = Input::default();
            read_chunks("s", &split_documents(text), 0, &mut split);
            split.join_azure();
            assert_eq!(whole, split, "{text}");
        }
        let read = Input::parse(&[Source::new("s", list.as_str())]);
        let names: Vec<_> = read
            .documents
            .iter()
            .map(|d| (d.name.clone(), d.root.span().line))
            .collect();
        assert_eq!(names, [(Some("a".into()), 2), (Some("b".into()), 7)]);
        let refused = Input::parse(&[Source::new("s", mc("a", "pr\u{86}od").as_str())]);
        let msgs: Vec<_> = refused
            .diagnostics
            .iter()
            .map(|d| (d.line, d.column, d.message.as_str()))
            .collect();
        assert_eq!(
            msgs,
            [(
                4,
                50,
                "control character U+0086 is not allowed in YAML (the document is not read)"
            )]
        );
        let two = Input::parse(&[Source::new("s", texts[6].as_str())]);
        assert_eq!(two.documents.len(), 2);
    }

    /// JSON values one after another (`kubectl get … -o json | jq '.items[]'`) are read as
    /// kubectl reads such a file: each object is a manifest, numbered in order, with its own
    /// repeated keys; the same objects in a List read the same. A value that does not read
    /// is an error where it starts, after the ones before it are read.
    #[test]
    fn json_values_one_after_another_are_one_document_each() {
        let mc = |name: &str| {
            format!("{{\n  \"apiVersion\": \"cluster.kubernetes-fleet.io/v1\",\n  \"kind\": \"MemberCluster\",\n  \"metadata\": {{\"name\": \"{name}\", \"labels\": {{\"env\": \"prod\"}}}}\n}}")
        };
        // The second with a repeated key; the third right after it, on the same line.
        let b = mc("b").replace("\"env\"", "\"env\": \"dev\", \"env\"");
        let stream = format!("{}\n{}{}\n", mc("a"), b, mc("c"));
        let read = Input::parse(&[Source::new("s", stream.as_str())]);
        let docs: Vec<_> = read
            .documents
            .iter()
            .map(|d| (d.name.clone().unwrap_or_default(), d.index, d.root.span()))
            .collect();
        let at = |line, column| Span { line, column };
        assert_eq!(
            docs,
            [
                ("a".to_string(), 1, at(1, 1)),
                ("b".to_string(), 2, at(6, 1)),
                ("c".to_string(), 3, at(10, 2)),
            ]
        );
        let found: Vec<_> = read
            .diagnostics
            .iter()
            .map(|d| (d.document, d.line, d.column, d.message.as_str()))
            .collect();
        assert_eq!(found, [(2, 9, 54, "duplicate key \"env\" in a mapping")]);
        let list = format!(
            "{{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [{}, {}, {}]}}",
            mc("a"),
            b,
            mc("c")
        );
        let listed = Input::parse(&[Source::new("s", list.as_str())]);
        let json = |i: &Input| {
            i.documents
                .iter()
                .map(|d| d.root.to_json())
                .collect::<Vec<_>>()
        };
        assert_eq!(json(&read), json(&listed));
        // Read apart (as the playground reads a chunk) it is the same.
        let mut split = Input::default();
        read_chunks("s", &split_documents(&stream), 0, &mut split);
        assert_eq!(read, split);

        // A broken third value: the first two are read, the error is where the third starts.
        for (tail, line, column) in [
            ("{\"kind\": }", 11, 1),
            ("{kind: MemberCluster}", 11, 1),
            ("trailing", 11, 1),
        ] {
            let text = format!("{}\n{}\n{tail}\n", mc("a"), mc("b"));
            let read = Input::parse(&[Source::new("s", text.as_str())]);
            assert_eq!(read.documents.len(), 2, "{tail}");
            let found: Vec<_> = read
                .diagnostics
                .iter()
                .map(|d| {
                    (
                        d.document,
                        d.line,
                        d.column,
                        d.message.starts_with("invalid JSON: "),
                    )
                })
                .collect();
            assert_eq!(found, [(3, line, column, true)], "{tail}");
        }
        // One value and then YAML's: read as before (a comment, a marker and a document).
        for text in [
            format!("{}\n# a comment\n", mc("a")),
            format!("{}\n---\n{}\n", mc("a"), mc("b")),
        ] {
            let read = Input::parse(&[Source::new("s", text.as_str())]);
            assert!(read.diagnostics.is_empty(), "{text}");
        }
    }

    /// Two inputs read apart and appended are the input read together (the playground reads
    /// each editor apart): documents, findings, neighbours and the AKS join across both.
    #[test]
    fn inputs_read_apart_and_appended_equal_one_read_together() {
        let a = "apiVersion: v1\nkind: Namespace\nmetadata: {name: n}\n---\n{\"type\": \"Microsoft.ContainerService/fleets/members\", \"name\": \"m\", \"clusterResourceId\": \"/x/managedClusters/AKS\", \"group\": \"g\"}\n";
        let b = "{\"type\": \"Microsoft.ContainerService/managedClusters\", \"id\": \"/x/managedclusters/aks\", \"currentKubernetesVersion\": \"1.30.5\"}\n---\nkind: Broken\n";
        let together = Input::parse(&[Source::new("a", a), Source::new("b", b)]);
        let mut apart = Input::parse(&[Source::new("a", a)]);
        let mark = apart.mark();
        apart.append(Input::parse(&[Source::new("b", "kind: Other\n")]));
        apart.truncate(mark);
        apart.append(Input::parse(&[Source::new("b", b)]));
        assert_eq!(apart, together);
        let member = &together.documents[0];
        assert_eq!(
            member
                .root
                .get("cluster")
                .and_then(|c| c.get("kubernetesVersion"))
                .and_then(Node::as_scalar),
            Some("1.30.5")
        );
    }

    /// Past the size cap a source is not read, with an error saying why.
    #[test]
    fn input_past_the_size_cap_is_refused_with_an_error() {
        let big = "#".repeat(MAX_INPUT_BYTES + 1);
        let input = Input::parse(&[Source::new("small", "a: 1\n"), Source::new("big", big)]);
        let msgs: Vec<(&str, &str)> = input
            .diagnostics
            .iter()
            .map(|d| (d.source.as_str(), d.message.as_str()))
            .collect();
        assert_eq!(msgs.len(), 2);
        assert_eq!(msgs[1], ("big", "not read: the input exceeds 256 MiB (about 90,000 clusters as kubectl prints them); split it"));
    }

    /// A repeated key is found in a large mapping as in a small one (a set past 16 keys).
    #[test]
    fn duplicate_keys_in_large_mappings() {
        let mut text: String = (0..1000).map(|i| format!("k{i}: {i}\n")).collect();
        text.push_str("k500: again\nk3: again\n");
        let Ok((_, dups)) = parse_yaml(&text, 1) else {
            panic!("not parsed")
        };
        let keys: Vec<(u32, &str)> = dups.iter().map(|(s, k)| (s.line, k.as_str())).collect();
        assert_eq!(keys, [(1001, "k500"), (1002, "k3")]);
    }

    /// An alias is a copy of its anchor's node: scalars and collections, an anchor inside an
    /// anchored collection, a redefined anchor (later aliases see the new node).
    #[test]
    fn aliases_copy_their_anchors_node() {
        let text = "a: &x 1\nb: &m {c: &y [*x, 2], d: *y}\ne: *m\nf: *y\nx2: &x 3\ng: *x\n";
        assert_eq!(
            yaml_to_json(text).ok(),
            Some(serde_json::json!({
                "a": 1, "b": {"c": [1, 2], "d": [1, 2]}, "e": {"c": [1, 2], "d": [1, 2]},
                "f": [1, 2], "x2": 3, "g": 3
            }))
        );
        assert!(yaml_to_json("a: *nope\n").is_err());
    }

    /// The recorded entries find what the key scans find (the last of a repeated key,
    /// nothing for a missing or non-mapping field), and kinds filter as by name.
    #[test]
    fn layout_lookups_agree_with_scans() {
        let texts = [
            "metadata: {name: a, labels: {x: '1', y: '2'}, annotations: {k: v}}\nspec: {s: 1}",
            "metadata: {labels: {x: '1'}, labels: {x: '2'}}\nspec: 1\nspec: 2",
            "metadata: {name: a}\nmetadata: {labels: {x: y}}",
            "metadata: [a]\nspec: ~",
            "metadata: {labels: [a], annotations: 3}",
            "metadata: {'labels': {x: z}, \"annotations\": {a: b}}\n'spec': {}",
            "kind: MemberCluster",
        ];
        for (i, body) in texts.iter().enumerate() {
            let text = format!(
                "apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\n{body}\n---\n\
                 apiVersion: placement.kubernetes-fleet.io/v1beta1\nkind: ClusterResourceBinding\n{body}\n"
            );
            let input = Input::parse_str(&text);
            for doc in &input.documents {
                let meta = doc.root.get("metadata");
                assert_eq!(
                    doc.metadata().map(|n| n as *const Node),
                    meta.map(|n| n as *const Node),
                    "{i}"
                );
                assert_eq!(
                    doc.spec().map(|n| n as *const Node),
                    doc.root.get("spec").map(|n| n as *const Node),
                    "{i}"
                );
                let labels = meta
                    .and_then(|m| m.get("labels"))
                    .and_then(Node::as_map)
                    .unwrap_or(&[]);
                assert_eq!(doc.labels_map().as_ptr(), labels.as_ptr(), "{i}");
                assert_eq!(doc.labels_map().len(), labels.len(), "{i}");
                let ann = meta.and_then(|m| m.get("annotations"));
                assert_eq!(
                    doc.annotations().map(|n| n as *const Node),
                    ann.map(|n| n as *const Node),
                    "{i}"
                );
            }
            for kind in [
                "MemberCluster",
                "ClusterResourceBinding",
                "FleetMember",
                "NoSuchKind",
            ] {
                let by_id: Vec<_> = input.of_kind(kind).map(|d| d.index).collect();
                let by_name: Vec<_> = input
                    .documents
                    .iter()
                    .filter(|d| d.kind == kind)
                    .map(|d| d.index)
                    .collect();
                assert_eq!(by_id, by_name, "{i} {kind}");
                let [one_pass, again] = input.of_kinds([kind, kind]);
                for list in [one_pass, again] {
                    let list: Vec<_> = list.iter().map(|d| d.index).collect();
                    assert_eq!(list, by_name, "{i} {kind}");
                }
            }
        }
    }

    #[test]
    fn multi_document_with_spans_and_lists() {
        let text = "\
# fleet
apiVersion: cluster.kubernetes-fleet.io/v1
kind: MemberCluster
metadata:
  name: a
---
apiVersion: v1
kind: List
items:
- apiVersion: cluster.kubernetes-fleet.io/v1beta1
  kind: MemberCluster
  metadata: {name: b}
- apiVersion: cluster.kubernetes-fleet.io/v1beta1
  kind: MemberCluster
  metadata:
    name: c
";
        let input = Input::parse_str(text);
        assert!(input.diagnostics.is_empty(), "{:?}", input.diagnostics);
        let names: Vec<_> = input
            .documents
            .iter()
            .map(|d| (d.index, d.item, d.name.clone().unwrap_or_default()))
            .collect();
        assert_eq!(
            names,
            vec![
                (1, None, "a".to_string()),
                (2, Some(0), "b".to_string()),
                (2, Some(1), "c".to_string())
            ]
        );
        let c = &input.documents[2];
        let span = c.root.locate(&"metadata.name".into()).span();
        assert_eq!((span.line, span.column), (16, 11));
    }

    #[test]
    fn a_broken_document_does_not_hide_the_others() {
        let text = "\
apiVersion: cluster.kubernetes-fleet.io/v1
kind: MemberCluster
metadata: {name: a
---
apiVersion: cluster.kubernetes-fleet.io/v1
kind: MemberCluster
metadata: {name: b}
";
        let input = Input::parse_str(text);
        assert_eq!(input.documents.len(), 1);
        assert_eq!(input.documents[0].name.as_deref(), Some("b"));
        assert_eq!(input.diagnostics.len(), 1);
        let d = &input.diagnostics[0];
        assert_eq!(d.document, 1);
        assert!(d.message.starts_with("invalid YAML"), "{}", d.message);
        assert!(d.line >= 3, "line {}", d.line);
    }

    #[test]
    fn unknown_kind_and_missing_fields_are_errors_with_positions() {
        let text = "apiVersion: v1\nkind: MemberClustr\n---\nkind: MemberCluster\n---\napiVersion: cluster.kubernetes-fleet.io/v2\nkind: MemberCluster\n---\napiVersion: v1\nkind: Frobnicator\n";
        let input = Input::parse_str(text);
        assert!(input.documents.is_empty());
        let msgs: Vec<_> = input
            .diagnostics
            .iter()
            .map(|d| (d.document, d.line, d.column, d.message.clone()))
            .collect();
        assert_eq!(msgs.len(), 3);
        assert_eq!((msgs[0].0, msgs[0].1, msgs[0].2), (1, 2, 7));
        assert_eq!(
            msgs[0].3,
            "unknown kind \"MemberClustr\"; did you mean \"MemberCluster\"?"
        );
        assert_eq!(msgs[1].3, "missing required field \"apiVersion\"");
        assert_eq!((msgs[2].0, msgs[2].1), (3, 6));
        // Each version once, though two engines read MemberClusters.
        assert!(msgs[2].3.ends_with(
            "is not supported for kind MemberCluster; use cluster.kubernetes-fleet.io/v1 or cluster.kubernetes-fleet.io/v1beta1"
        ), "{}", msgs[2].3);
        // A kind no engine reads is a neighbour, listed once as ignored.
        assert_eq!(
            input.ignored,
            vec![("v1".to_string(), "Frobnicator".to_string())]
        );
        assert_eq!(
            input.notices().first().map(|n| n.message.as_str()),
            Some("ignored (no engine reads these kinds): 1 × Frobnicator")
        );
    }

    /// The places of a tree's empty and null nodes, in document order.
    fn nulls(node: &Node, out: &mut Vec<(u32, u32)>) {
        match &node.value {
            Value::Null => out.push((node.span().line, node.span().column)),
            Value::Seq(items) => items.iter().for_each(|n| nulls(n, out)),
            Value::Map(entries) => entries.iter().for_each(|(k, v)| {
                nulls(k, out);
                nulls(v, out)
            }),
            _ => {}
        }
    }

    #[test]
    fn an_empty_node_is_placed_after_its_indicator_or_at_its_anchor_as_go_yaml_does() {
        let cases: [(&str, &[(u32, u32)]); 11] = [
            // A key without a value, before a sibling key: after its colon.
            ("metadata:\n  name:\n  labels: {a: b}\n", &[(2, 8)]),
            // An empty item before a sibling item, and one at the end of the text.
            ("items:\n- \n- a: 1\n-\n", &[(2, 2), (4, 2)]),
            ("items:\n  -\n  - a\n", &[(2, 4)]),
            // A comment after the indicator, and comment lines before the next token.
            ("a: # none\n# more\n\n  # and more\nb: 1\n", &[(1, 3)]),
            ("- # none\n- x\n", &[(1, 2)]),
            // Flow collections.
            ("{a: , b: 1}\n", &[(1, 4)]),
            // An anchor or a tag: at the first of them.
            ("- &a\n- !!null\n- &b !!str\n- x\n", &[(1, 3), (2, 3)]),
            // A `#` inside a quoted key is not a comment.
            ("\"k #1\": # c\nb: 1\n", &[(1, 8)]),
            ("a:\r\nb: 1\r\n", &[(1, 3)]),
            ("a:\n  b:\nc:\n", &[(2, 5), (3, 3)]),
            // An empty key (`: value`) is at its colon, an empty value after its key's colon.
            ("items:\n- : v\n  a:\n", &[(2, 3), (3, 5)]),
        ];
        for (text, want) in cases {
            let (root, _) = parse_yaml(text, 1).unwrap_or_else(|e| panic!("{text:?}: {e:?}"));
            let mut got = Vec::new();
            nulls(&root.expect("a document"), &mut got);
            assert_eq!(got, want, "{text:?}");
        }
        // Through a whole read, with the document's own line numbers.
        let input = Input::parse_str("apiVersion: v1\nkind: List\nitems:\n- \n");
        let d = &input.diagnostics[0];
        assert_eq!((d.line, d.column), (4, 2), "{}", d.message);
    }

    #[test]
    fn duplicate_keys_are_reported() {
        let text = "apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata:\n  name: a\n  name: b\n";
        let input = Input::parse_str(text);
        assert_eq!(input.diagnostics.len(), 1);
        assert_eq!(input.diagnostics[0].line, 5);
        assert!(input.diagnostics[0]
            .message
            .contains("duplicate key \"name\""));
    }
}
