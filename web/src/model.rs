//! The root's state and how each user action changes it (a Yew reducer). Plain Rust: the
//! evaluation it triggers, the editors and the storage are the root's business.

use crate::state::{MemberMode, State, View};
pub use fleet_policy::session::Unchanged;
use std::rc::Rc;

/// Which editor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    /// The Fleet editor.
    Fleet,
    /// The Policy editor.
    Policy,
}

/// The user's state plus what the root needs to know about its changes.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Model {
    /// What the user set up (what links and local storage carry).
    pub state: State,
    /// Bumped when both editors' texts are replaced (an example, a link, a restore).
    pub loaded: u64,
    /// Bumped on every change the engine must see.
    pub rev: u64,
    /// The last change was a keystroke: evaluated after an adaptive pause, saved once typing
    /// stops.
    pub typing: bool,
    /// The selected (placement, cluster).
    pub selected: Option<(String, String)>,
}

/// What the user did.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// An editor's text changed.
    Edited(Which, Rc<str>),
    /// Evaluate now (Ctrl+Enter).
    Evaluate,
    /// Switch view.
    SetView(View),
    /// Set the evaluation instant (None = the default).
    SetAt(Option<String>),
    /// Replace the whole state (an example, a share link, the previous session).
    Load(State),
    /// Select a cluster of a placement.
    Select(String, String),
    /// Set a member's what-if.
    Member(String, MemberMode),
    /// Approve (or not) an approval request.
    Approve(String, bool),
    /// Observe the rollouts at an instant (None = settled).
    Observe(Option<String>),
}

impl Model {
    /// A model showing `state`.
    pub fn new(state: State) -> Self {
        Model {
            state,
            ..Model::default()
        }
    }
}

impl Model {
    /// Applies an action.
    pub fn apply(&mut self, action: Action) {
        self.typing = false;
        let s = &mut self.state;
        match action {
            Action::Edited(which, text) => {
                match which {
                    Which::Fleet => s.fleet = text,
                    Which::Policy => s.policy = text,
                }
                s.example = None;
                self.typing = true;
            }
            Action::Evaluate => {}
            Action::SetView(v) => s.view = v,
            Action::SetAt(at) => s.at = at,
            Action::Load(state) => {
                *s = state;
                self.loaded += 1;
                self.selected = None;
            }
            Action::Select(p, c) => {
                // Selecting changes no result: no evaluation.
                self.selected = Some((p, c));
                return;
            }
            Action::Member(member, mode) => s.what_if.set_member_mode(&member, mode),
            Action::Approve(r, on) => {
                let a = &mut s.what_if.approve;
                a.retain(|x| *x != r);
                if on {
                    a.push(r);
                    a.sort();
                }
            }
            Action::Observe(t) => s.what_if.observe = t,
        }
        self.rev += 1;
    }
}

/// Longest evaluation delay after a keystroke (ms).
const MAX_DEBOUNCE_MS: f64 = 150.0;
/// Evaluations faster than this (ms) run right after the keystroke: a keystroke that comes
/// while one runs waits at most that long (under the 100 ms in which a response feels
/// immediate), and the next evaluation takes every keystroke that came meanwhile.
const FAST_MS: f64 = 100.0;
/// Evaluations faster than this (ms) run in the keystroke's own task: the character and the
/// result show in the same frame. Slower ones let the character show first.
const IN_TASK_MS: f64 = 40.0;

/// When to evaluate after an edit, from how long evaluations take and how fast keys come.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Pace {
    /// How long the last evaluation took (ms); none before the first.
    last_cost: Option<f64>,
    /// When the last keystroke came (ms).
    last_key_at: Option<f64>,
}

impl Pace {
    /// When to evaluate an edit made at `now` (ms): `None` at once, in this task; else after
    /// that many ms. It waits only while keystrokes come faster than slow evaluations
    /// finish; then one evaluation after the burst takes them all.
    pub fn delay(&mut self, typing: bool, now: f64) -> Option<u32> {
        if !typing {
            return Some(0);
        }
        let since_key = self
            .last_key_at
            .replace(now)
            .map_or(f64::INFINITY, |t| now - t);
        let Some(cost) = self.last_cost else {
            return Some(0);
        };
        if cost < IN_TASK_MS {
            None
        } else if cost < FAST_MS || since_key > cost {
            Some(0)
        } else {
            Some(cost.min(MAX_DEBOUNCE_MS) as u32)
        }
    }

    /// An evaluation took `ms`.
    pub fn evaluated(&mut self, ms: f64) {
        self.last_cost = Some(ms);
    }
}

/// One change of an editor's text as CodeMirror reports it: `from..to` (UTF-16 units of the
/// text before the edit) replaced by `insert`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// Start, in UTF-16 units.
    pub from: usize,
    /// End, in UTF-16 units.
    pub to: usize,
    /// The text put there.
    pub insert: String,
}

/// An editor's text as the page keeps it between edits, with whether it is all ASCII: UTF-16
/// positions are then byte offsets, and a keystroke in a 7 MB fleet does not scan the text to
/// convert them.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct EditorText {
    text: String,
    /// True only when `text` is all ASCII (false may be stale after deleting the last other
    /// character: positions are then converted by scanning, which is still right).
    ascii: bool,
}

impl EditorText {
    /// The text as a whole (a load, or the editor's own when an edit did not fit).
    pub fn new(text: String) -> Self {
        let ascii = text.is_ascii();
        EditorText { text, ascii }
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Applies an edit's changes (ascending, positions in the text before the edit); the text
    /// must then be `len16` UTF-16 units long. Gives the bytes at the start and at the end
    /// that the edit left as they were, or `None` when the changes do not fit (the caller then
    /// takes the editor's whole text).
    pub fn apply(&mut self, changes: &[Change], len16: usize) -> Option<Unchanged> {
        let unchanged = apply_changes(&mut self.text, changes, self.ascii)?;
        self.ascii = self.ascii && changes.iter().all(|c| c.insert.is_ascii());
        let len = if self.ascii {
            self.text.len()
        } else {
            self.text.encode_utf16().count()
        };
        (len == len16).then_some(unchanged)
    }
}

/// Where an editor's text changed since the engine last read it, kept from the edits the
/// editor reports (the engine then compares a few bytes around them, not two 28 MB texts).
#[derive(Debug, Default)]
pub struct EditJournal {
    /// Whether the engine read this editor's text before.
    read: bool,
    /// The editor's newest text.
    head: Option<Rc<str>>,
    /// The bytes at the start and at the end of `head` that are those of the text read last;
    /// `None` when not known (a text loaded, or an edit that did not fit).
    unchanged: Option<Unchanged>,
}

impl EditJournal {
    /// The editor's text is now `text`: `unchanged` is what the edit left of the text before
    /// it (`None`: not known).
    pub fn edited(&mut self, text: &Rc<str>, unchanged: Option<Unchanged>) {
        self.unchanged = match (self.unchanged, unchanged) {
            (Some(a), Some(b)) => Some(Unchanged {
                prefix: a.prefix.min(b.prefix),
                suffix: a.suffix.min(b.suffix),
            }),
            _ => None,
        };
        self.head = Some(text.clone());
    }

    /// What is known of `text` against the text the engine read last, which `text` now
    /// becomes. Nothing is known unless `text` is the editor's newest (the same `Rc`): a
    /// text that did not come from the editor's edits is compared whole.
    pub fn read(&mut self, text: &Rc<str>) -> Unchanged {
        let known = match &self.head {
            Some(head) if self.read && Rc::ptr_eq(head, text) => self.unchanged,
            _ => None,
        };
        self.read = true;
        self.head = Some(text.clone());
        self.unchanged = Some(Unchanged {
            prefix: text.len(),
            suffix: text.len(),
        });
        known.unwrap_or_default()
    }
}

/// Puts `changes` (UTF-16 positions) into `text`, all ASCII when `ascii`; `None`, with `text`
/// unchanged, when a position is not in it. Gives the bytes the changes left at the start and
/// at the end.
fn apply_changes(text: &mut String, changes: &[Change], ascii: bool) -> Option<Unchanged> {
    // UTF-16 positions → byte offsets, in one pass (equal for ASCII, the usual case).
    let mut at = Vec::with_capacity(changes.len() * 2);
    let (mut chars, mut pos16, mut byte) = (text.char_indices().peekable(), 0usize, 0usize);
    for c in changes {
        for want in [c.from, c.to] {
            if ascii {
                at.push(want);
                continue;
            }
            while pos16 < want {
                let Some((_, ch)) = chars.next() else { break };
                pos16 += ch.len_utf16();
                byte += ch.len_utf8();
            }
            if pos16 != want {
                return None;
            }
            at.push(byte);
        }
    }
    let fits = at.windows(2).all(|w| w[0] <= w[1]) && at.last().is_none_or(|&e| e <= text.len());
    if !fits || !at.iter().all(|&b| text.is_char_boundary(b)) {
        return None;
    }
    let unchanged = Unchanged {
        prefix: at.first().copied().unwrap_or(text.len()),
        suffix: text.len() - at.last().copied().unwrap_or(0),
    };
    // One pass into a new text: `String::replace_range` inserts byte by byte (a 7.7 MB paste
    // took 70 ms of it in Chromium) and moves the rest of the text once per change.
    let removed: usize = at.chunks_exact(2).map(|r| r[1] - r[0]).sum();
    let inserted: usize = changes.iter().map(|c| c.insert.len()).sum();
    let mut out = String::with_capacity(text.len() - removed + inserted);
    let mut kept = 0;
    for (c, range) in changes.iter().zip(at.chunks_exact(2)) {
        out.push_str(&text[kept..range[0]]);
        out.push_str(&c.insert);
        kept = range[1];
    }
    out.push_str(&text[kept..]);
    *text = out;
    Some(unchanged)
}

#[cfg(target_arch = "wasm32")]
impl yew::Reducible for Model {
    type Action = Action;

    fn reduce(self: std::rc::Rc<Self>, action: Action) -> std::rc::Rc<Self> {
        let mut m = std::rc::Rc::unwrap_or_clone(self);
        m.apply(action);
        std::rc::Rc::new(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reduce(mut m: Model, a: Action) -> Model {
        m.apply(a);
        m
    }

    fn change(from: usize, to: usize, insert: &str) -> Change {
        Change {
            from,
            to,
            insert: insert.into(),
        }
    }

    fn text(t: &str) -> EditorText {
        EditorText::new(t.into())
    }

    #[test]
    fn editor_changes_apply_at_utf16_positions() {
        let mut t = text("kind: List\n");
        assert!(t.apply(&[change(11, 11, " ")], 12).is_some());
        assert_eq!(t.as_str(), "kind: List\n ");
        assert!(t
            .apply(&[change(0, 4, "KIND"), change(6, 10, "Map")], 11)
            .is_some());
        assert_eq!(t.as_str(), "KIND: Map\n ");
        // "é" is one UTF-16 unit and two bytes; "😀" two units and four bytes.
        let mut t = text("é😀x");
        assert!(t.apply(&[change(3, 4, "y")], 4).is_some());
        assert_eq!(t.as_str(), "é😀y");
        assert!(t.apply(&[change(1, 3, "")], 2).is_some());
        assert_eq!(t.as_str(), "éy");
        // Inside a surrogate pair, past the end, or a wrong length: refused.
        assert!(text("😀").apply(&[change(1, 1, "x")], 3).is_none());
        assert!(text("ab").apply(&[change(3, 3, "x")], 4).is_none());
        assert!(text("ab").apply(&[change(2, 2, "x")], 4).is_none());
    }

    /// What the journal says is unchanged is unchanged: after any run of edits (typed,
    /// deleted, pasted, several changes in one edit, non-ASCII text) since the last read, the
    /// bytes it gives at the start and at the end are those of the text read then; a load in
    /// between, or a text that is not the editor's newest, makes it say nothing.
    #[test]
    fn the_edit_journal_says_only_what_the_edits_left_unchanged() {
        let mut t = text("apiVersion: v1\nkind: List\nitems:\n- name: é1\n");
        let mut journal = EditJournal::default();
        let first: Rc<str> = t.as_str().into();
        assert_eq!(
            journal.read(&first),
            Unchanged::default(),
            "nothing read before"
        );
        let edits: [&[Change]; 5] = [
            &[change(5, 5, "x")],
            &[change(20, 22, "")],
            &[change(0, 1, "A"), change(30, 31, "zz")],
            &[change(41, 41, "😀")],
            &[change(3, 3, "")],
        ];
        let mut read = first.clone();
        for (k, edit) in edits.iter().enumerate() {
            let len16 = {
                let mut probe = t.clone();
                let _ = apply_changes(&mut probe.text, edit, probe.ascii);
                probe.text.encode_utf16().count()
            };
            let unchanged = t.apply(edit, len16);
            assert!(unchanged.is_some(), "edit {k} fits");
            let now: Rc<str> = t.as_str().into();
            journal.edited(&now, unchanged);
            // Read after every other edit: the journal spans one or two edits.
            if k % 2 == 1 || k == edits.len() - 1 {
                let known = journal.read(&now);
                let (a, b) = (read.as_bytes(), now.as_bytes());
                assert!(known.prefix <= a.len().min(b.len()), "edit {k}: {known:?}");
                assert_eq!(a[..known.prefix], b[..known.prefix], "edit {k}");
                assert!(known.suffix <= a.len().min(b.len()), "edit {k}: {known:?}");
                assert_eq!(
                    a[a.len() - known.suffix..],
                    b[b.len() - known.suffix..],
                    "edit {k}"
                );
                assert!(
                    known != Unchanged::default(),
                    "edit {k}: something is known"
                );
                read = now;
            }
        }
        assert_eq!(
            journal.read(&read),
            Unchanged {
                prefix: read.len(),
                suffix: read.len()
            },
            "no edit since: all of it"
        );
        // A load: the edits before and after it say nothing about the text read.
        let loaded: Rc<str> = "kind: Other\n".into();
        journal.edited(&loaded, None);
        let typed: Rc<str> = "kind: Other\n#".into();
        journal.edited(
            &typed,
            Some(Unchanged {
                prefix: 12,
                suffix: 0,
            }),
        );
        assert_eq!(journal.read(&typed), Unchanged::default());
        // A text the editor did not give (the same characters, another `Rc`): nothing known.
        let same: Rc<str> = typed.to_string().into();
        journal.edited(
            &typed,
            Some(Unchanged {
                prefix: 13,
                suffix: 13,
            }),
        );
        assert_eq!(journal.read(&same), Unchanged::default());
    }

    #[test]
    fn an_ascii_text_that_gets_other_characters_is_converted_from_then_on() {
        // Typed into an ASCII text: "é" (2 bytes, 1 unit), then an edit after it, whose
        // UTF-16 position is no longer its byte offset.
        let mut t = text("ab");
        assert!(t.apply(&[change(1, 1, "é")], 3).is_some());
        assert!(t.apply(&[change(2, 3, "X")], 3).is_some());
        assert_eq!(t.as_str(), "aéX");
        // The other character deleted again: positions stay right.
        assert!(t.apply(&[change(1, 2, "")], 2).is_some());
        assert!(t.apply(&[change(2, 2, "!")], 3).is_some());
        assert_eq!(t.as_str(), "aX!");
    }

    #[test]
    fn keystrokes_wait_only_while_they_come_faster_than_slow_evaluations() {
        let mut p = Pace::default();
        // Nothing known yet, and anything that is not typing: in the next task.
        assert_eq!(p.delay(true, 1_000.0), Some(0));
        p.evaluated(1_200.0); // a 10,000-cluster paste
        assert_eq!(p.delay(false, 1_010.0), Some(0));
        // A keystroke 3 s after the last one: no burst, in the next task.
        assert_eq!(p.delay(true, 4_000.0), Some(0));
        p.evaluated(95.0);
        // 60 ms later: faster than the evaluation, but it is fast enough to run at once.
        assert_eq!(p.delay(true, 4_060.0), Some(0));
        p.evaluated(130.0);
        // Keys 80 ms apart while evaluations take 130 ms: wait that long for the burst.
        assert_eq!(p.delay(true, 4_140.0), Some(130));
        p.evaluated(400.0);
        assert_eq!(p.delay(true, 4_200.0), Some(150), "at most MAX_DEBOUNCE_MS");
        // The typist paused longer than an evaluation takes: in the next task again.
        assert_eq!(p.delay(true, 4_700.0), Some(0));
        // Quick evaluations run in the keystroke's task, however fast the keys come.
        p.evaluated(12.0);
        assert_eq!(p.delay(true, 4_710.0), None);
        assert_eq!(p.delay(false, 4_720.0), Some(0));
    }

    #[test]
    fn a_keystroke_is_typing_and_forgets_the_example_a_load_replaces_the_texts() {
        let m = Model::new(State {
            example: Some("pickfixed".into()),
            ..State::default()
        });
        let typed = reduce(m, Action::Edited(Which::Policy, "kind: X".into()));
        assert_eq!((typed.rev, typed.typing, typed.loaded), (1, true, 0));
        assert_eq!(&*typed.state.policy, "kind: X");
        assert_eq!(typed.state.example, None);
        let selected = reduce(typed, Action::Select("p".into(), "c".into()));
        assert_eq!(selected.rev, 1, "selecting needs no evaluation");
        let loaded = reduce(selected, Action::Load(State::default()));
        assert_eq!((loaded.rev, loaded.typing, loaded.loaded), (2, false, 1));
        assert_eq!(loaded.selected, None);
        let member = reduce(loaded, Action::Member("m1".into(), MemberMode::Fail));
        assert_eq!(member.state.what_if.fail, ["m1"]);
    }
}
