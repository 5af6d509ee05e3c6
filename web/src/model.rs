//! The root's state and how each user action changes it (a Yew reducer). Plain Rust: the
//! evaluation it triggers, the editors and the storage are the root's business.

use crate::state::{MemberMode, State, View};

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
    Edited(Which, String),
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

    #[test]
    fn a_keystroke_is_typing_and_forgets_the_example_a_load_replaces_the_texts() {
        let m = Model::new(State {
            example: Some("pickfixed".into()),
            ..State::default()
        });
        let typed = reduce(m, Action::Edited(Which::Policy, "kind: X".into()));
        assert_eq!((typed.rev, typed.typing, typed.loaded), (1, true, 0));
        assert_eq!(typed.state.policy, "kind: X");
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
