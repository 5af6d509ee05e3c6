//! Errors and warnings about the input, each tied to a document, a field and a line:column.
use crate::text::Escaped;
use serde::Serialize;
use std::fmt;

/// A 1-based line and column in a source text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize)]
pub struct Span {
    /// Line, starting at 1.
    pub line: u32,
    /// Column, starting at 1.
    pub column: u32,
}

/// How bad a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Severity {
    /// The document (or the field) cannot be used as written.
    Error,
    /// The input is used, but something about it deserves attention.
    Warning,
}

/// One error or warning about the input.
///
/// `path` is a field path in the document (`spec.policy.tolerations[0].operator`); empty for
/// problems with the whole document. `line`/`column` point at the field (or at the deepest
/// part of the path that exists).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// Name of the source text (file name, or editor name in the playground).
    pub source: String,
    /// 1-based index of the YAML document within its source; 0 when the diagnostic is not
    /// about one document (the options, with `source` "options"; the input as a whole).
    pub document: usize,
    /// 0-based index of the item when the document is a `kind: List`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<usize>,
    /// The manifest's kind, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// The manifest's `metadata.name`, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Field path inside the document.
    pub path: String,
    /// 1-based line; 0 when the diagnostic is not about a place in the text (as `document`).
    pub line: u32,
    /// 1-based column; 0 as `line`.
    pub column: u32,
    /// What is wrong, in words.
    pub message: String,
}

/// The source name of a diagnostic about the evaluation's options rather than its input.
const OPTIONS: &str = "options";

impl Diagnostic {
    /// A diagnostic about a value of the evaluation's options (`--set`, the npm options
    /// object): no document, no position; printed as `options: …`.
    pub fn of_options(severity: Severity, message: impl Into<String>) -> Self {
        Diagnostic::in_source(severity, OPTIONS, 0, Span::default(), message)
    }

    /// Whether this is a diagnostic about the options ([`Diagnostic::of_options`]).
    pub fn is_of_options(&self) -> bool {
        self.document == 0 && self.source == OPTIONS
    }

    /// A diagnostic about a source as a whole (no document could be identified).
    pub fn in_source(
        severity: Severity,
        source: &str,
        document: usize,
        span: Span,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            severity,
            source: source.to_string(),
            document,
            item: None,
            kind: None,
            name: None,
            path: String::new(),
            line: span.line,
            column: span.column,
            message: message.into(),
        }
    }

    /// Whether this is an error (as opposed to a warning).
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    /// One line per diagnostic, whatever the input holds: names, paths and messages have
    /// their control characters escaped, so a name cannot forge a line of its own.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        // Not from a document (an option such as `karpenterVersion`): no position to give.
        if self.document == 0 && self.line == 0 {
            return write!(
                f,
                "{level}: {}: {}",
                Escaped(&self.source),
                Escaped(&self.message)
            );
        }
        write!(
            f,
            "{level}: {}:{}:{}: document {}",
            Escaped(&self.source),
            self.line,
            self.column,
            self.document
        )?;
        if let Some(item) = self.item {
            write!(f, " item {item}")?;
        }
        // A document without `kind` still names itself by its name.
        match (self.kind.as_deref().filter(|k| !k.is_empty()), &self.name) {
            (Some(k), Some(n)) => write!(f, " ({} {})", Escaped(k), Escaped(n))?,
            (Some(k), None) => write!(f, " ({})", Escaped(k))?,
            (None, Some(n)) => write!(f, " (name {})", Escaped(n))?,
            (None, None) => {}
        }
        if !self.path.is_empty() {
            write!(f, ", {}", Escaped(&self.path))?;
        }
        write!(f, ": {}", Escaped(&self.message))
    }
}

/// Splits diagnostics into (errors, warnings), keeping their order.
pub fn partition(diagnostics: Vec<Diagnostic>) -> (Vec<Diagnostic>, Vec<Diagnostic>) {
    diagnostics.into_iter().partition(Diagnostic::is_error)
}

/// The API server's message for an integer the CRD schema bounds to `min..=max`
/// (`spec.revisionHistoryLimit in body should be greater than or equal to 1`); `None` within.
pub(crate) fn out_of_range(field: &str, value: i64, min: i64, max: i64) -> Option<String> {
    let (side, bound) = match value {
        v if v < min => ("greater", min),
        v if v > max => ("less", max),
        _ => return None,
    };
    Some(format!(
        "Invalid value: {value}: {field} in body should be {side} than or equal to {bound}"
    ))
}
