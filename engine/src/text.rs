//! Untrusted text in terminal output: names and messages come from the input, and a name
//! holding a newline or an escape sequence would otherwise forge `error:` lines, CI
//! annotations (`::error …` at a line start) or drive the terminal.

use std::borrow::Cow;
use std::fmt;

/// Whether `c` must not reach a terminal as is: control characters (C0, DEL, C1), and the
/// line separators and bidirectional overrides that make text display other than it reads.
fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{2028}' | '\u{2029}' | '\u{202A}'..='\u{202E}'
                | '\u{2066}'..='\u{2069}'
        )
}

/// `text` with every control character written as an escape (`\n`, `\t`, `\u{1b}`), so it
/// stays on its line and shows what it holds. Text without one is borrowed.
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    if !text.chars().any(hidden) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(Escaped(text).to_string())
}

/// Displays a string with its control characters escaped (see [`escape_controls`]).
pub struct Escaped<'a>(pub &'a str);

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use fmt::Write;
        if !self.0.chars().any(hidden) {
            // Padding (`{:<10}`) applies to untouched text as to any string.
            return f.pad(self.0);
        }
        let mut out = String::with_capacity(self.0.len() + 8);
        for c in self.0.chars() {
            match c {
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                c if hidden(c) => {
                    let _ = write!(out, "\\u{{{:x}}}", c as u32);
                }
                c => out.push(c),
            }
        }
        f.pad(&out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_and_plain_text_is_borrowed() {
        assert!(matches!(escape_controls("web-01"), Cow::Borrowed("web-01")));
        assert_eq!(
            escape_controls("a\nerror: x\r\t\u{1b}[31mred\u{7f}\u{9b}"),
            "a\\nerror: x\\r\\t\\u{1b}[31mred\\u{7f}\\u{9b}"
        );
        assert_eq!(escape_controls("abc\u{202E}fed"), "abc\\u{202e}fed");
        assert_eq!(escape_controls("naïve ✓"), "naïve ✓");
        assert_eq!(format!("[{:<6}]", Escaped("a\nb")), "[a\\nb  ]");
        assert_eq!(format!("[{:<6}]", Escaped("ab")), "[ab    ]");
    }
}
