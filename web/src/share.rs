//! Share links and local persistence.
//!
//! A share link carries the whole [`State`] in the URL fragment (never sent to a server):
//! `#v=<engine version>&s=<base64url(deflate(JSON))>`. The version lets a link opened in
//! another engine version say so instead of silently showing different numbers.
//!
//! The docs embed's "Open in playground" link (`static/embed/fleet-policy-example.js`) uses
//! its own, simpler fragment — `#yaml=<base64url(UTF-8)>&view=<view>&at=<RFC 3339>&v=<version>`
//! written by `URLSearchParams` — which [`decode`] accepts too.

use crate::state::{State, View};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
#[cfg(target_arch = "wasm32")]
use gloo_storage::{LocalStorage, Storage};

/// localStorage key of the last state.
#[cfg(target_arch = "wasm32")]
const STORAGE_KEY: &str = "fleet-policy-playground/state";
/// localStorage key of the session a share link replaced (until restored or replaced).
#[cfg(target_arch = "wasm32")]
const PREVIOUS_KEY: &str = "fleet-policy-playground/previous";
/// localStorage key of the theme choice.
#[cfg(target_arch = "wasm32")]
const THEME_KEY: &str = "fleet-policy-playground/theme";
/// Links longer than this (in characters) get a warning: chat tools and mail clients commonly
/// cut or refuse URLs past a few thousand characters (and IE-era limits of 2,083 linger).
pub const LONG_LINK: usize = 8_000;
/// Largest state a link may inflate to (guards against a hostile link).
const MAX_STATE_BYTES: usize = 8 << 20;

/// Encodes a state as a URL fragment (without the `#`).
pub fn encode(state: &State) -> String {
    let json = serde_json::to_vec(state).unwrap_or_default();
    let packed = miniz_oxide::deflate::compress_to_vec(&json, 9);
    format!(
        "v={}&s={}",
        fleet_policy::VERSION,
        URL_SAFE_NO_PAD.encode(packed)
    )
}

/// A decoded link.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    /// The state.
    pub state: State,
    /// The engine version that wrote the link.
    pub version: String,
}

/// Decodes a URL fragment (with or without the `#`): a share link (`s=`) or a docs embed link
/// (`yaml=`); `None` when it holds neither.
pub fn decode(fragment: &str) -> Option<Result<Decoded, String>> {
    let fragment = fragment.trim_start_matches('#');
    let mut version = None;
    let mut data = None;
    let (mut yaml, mut view, mut at) = (None, None, None);
    for part in fragment.split('&') {
        match part.split_once('=') {
            Some(("v", v)) => version = Some(form_decode(v)),
            Some(("s", s)) => data = Some(s),
            Some(("yaml", y)) => yaml = Some(y),
            Some(("view", v)) => view = Some(form_decode(v)),
            Some(("at", a)) => at = Some(form_decode(a)),
            _ => {}
        }
    }
    let version = version.unwrap_or_else(|| "unknown".into());
    if let Some(data) = data {
        return Some(decode_state(data).map(|state| Decoded { state, version }));
    }
    let yaml = yaml?;
    Some(embed_state(yaml, view.as_deref(), at).map(|state| Decoded { state, version }))
}

fn decode_state(data: &str) -> Result<State, String> {
    let packed = URL_SAFE_NO_PAD
        .decode(data)
        .map_err(|e| format!("the link is damaged (base64: {e})"))?;
    let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, MAX_STATE_BYTES)
        .map_err(|e| format!("the link is damaged (deflate: {e:?})"))?;
    let state: State = serde_json::from_slice(&json)
        .map_err(|e| format!("the link's state is not understood: {e}"))?;
    // Names come from the YAML, and no Kubernetes name holds a control character: a link
    // whose what-ifs do was crafted (to smuggle lines into an export, say).
    let w = &state.what_if;
    let names = w
        .fail
        .iter()
        .chain(&w.pending)
        .chain(&w.skip)
        .chain(&w.approve);
    if let Some(bad) = names.chain(&w.observe).find(|n| {
        n.chars()
            .any(|c| c.is_control() || matches!(c, '\u{2028}' | '\u{2029}'))
    }) {
        return Err(format!(
            "the link's what-ifs are not understood: {bad:?} holds a control character"
        ));
    }
    Ok(state)
}

/// Kinds that describe the fleet as it is (observed objects): the Fleet editor holds them, so
/// facts and click-to-source find them there. Everything else (placements, NodePools, update
/// runs and strategies) is policy.
const FLEET_KINDS: &[&str] = &[
    "MemberCluster",
    "FleetMember",
    "NodeCounts",
    "Node",
    "NodeClaim",
    "Pod",
    "PodDisruptionBudget",
    "AvailableVersions",
    "ClusterResourceBinding",
    "PlacementBinding",
];

/// Splits one YAML stream into (fleet, policy) documents by their top-level `kind`, keeping
/// each document's text (comments included) and the order within each part.
pub fn split_fleet_policy(yaml: &str) -> (String, String) {
    let mut docs: Vec<Vec<&str>> = vec![Vec::new()];
    for line in yaml.lines() {
        // A document separator: `---` alone, or followed by a space or a comment.
        if line == "---" || line.starts_with("--- ") || line.starts_with("---\t") {
            docs.push(Vec::new());
        } else if let Some(d) = docs.last_mut() {
            d.push(line);
        }
    }
    let (mut fleet, mut policy) = (Vec::new(), Vec::new());
    for d in docs {
        if d.iter().all(|l| l.trim().is_empty()) {
            continue;
        }
        let kind = d.iter().find_map(|l| l.strip_prefix("kind:")).map(|k| {
            k.split('#')
                .next()
                .unwrap_or("")
                .trim()
                .trim_matches(['"', '\''])
        });
        let text = format!("{}\n", d.join("\n"));
        if kind.is_some_and(|k| FLEET_KINDS.contains(&k)) {
            fleet.push(text);
        } else {
            policy.push(text);
        }
    }
    if fleet.is_empty() {
        // Nothing to move: the text stays exactly as written.
        return (String::new(), yaml.to_string());
    }
    (fleet.join("---\n"), policy.join("---\n"))
}

/// The state of a docs embed link: its YAML split between the editors (the fleet's objects in
/// the Fleet editor, the rest in the Policy editor), its view and its instant.
fn embed_state(yaml: &str, view: Option<&str>, at: Option<String>) -> Result<State, String> {
    let b64 = form_decode(yaml);
    let bytes = URL_SAFE_NO_PAD
        .decode(b64.trim_end_matches('='))
        .map_err(|e| format!("the link is damaged (base64: {e})"))?;
    let yaml = String::from_utf8(bytes).map_err(|_| "the link's YAML is not UTF-8".to_string())?;
    let (fleet, policy) = split_fleet_policy(&yaml);
    let view = match view {
        Some("budgets" | "disruption") => View::Disruption,
        Some("rollout") => View::Rollout,
        // "placement", and any view this playground does not know.
        _ => View::default(),
    };
    // An instant that does not parse is dropped: the playground then evaluates at "now".
    let at = at.filter(|a| chrono::DateTime::parse_from_rfc3339(a).is_ok());
    Ok(State {
        fleet: fleet.into(),
        policy: policy.into(),
        at,
        view,
        ..State::default()
    })
}

/// Decodes one `application/x-www-form-urlencoded` value (what `URLSearchParams` writes):
/// `+` is a space and `%XX` a byte; a malformed escape is kept as written.
fn form_decode(value: &str) -> String {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let hex = |j: usize| bytes.get(j).and_then(|c| (*c as char).to_digit(16));
        match (b, hex(i + 1), hex(i + 2)) {
            (b'%', Some(hi), Some(lo)) => {
                out.push((hi * 16 + lo) as u8);
                i += 3;
            }
            _ => {
                out.push(if b == b'+' { b' ' } else { b });
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

// A full or disabled storage only loses persistence, never the session: write errors are
// dropped, and a value that does not read back is no value.

#[cfg(target_arch = "wasm32")]
/// Saves the last state.
pub fn save(state: &State) {
    let _ = LocalStorage::set(STORAGE_KEY, state);
}

#[cfg(target_arch = "wasm32")]
/// The last saved state.
pub fn load() -> Option<State> {
    LocalStorage::get(STORAGE_KEY).ok()
}

#[cfg(target_arch = "wasm32")]
/// Keeps aside the session a share link replaces.
pub fn save_previous(state: &State) {
    let _ = LocalStorage::set(PREVIOUS_KEY, state);
}

#[cfg(target_arch = "wasm32")]
/// The session kept aside, if any.
pub fn load_previous() -> Option<State> {
    LocalStorage::get(PREVIOUS_KEY).ok()
}

#[cfg(target_arch = "wasm32")]
/// The session kept aside, taken out of storage.
pub fn take_previous() -> Option<State> {
    let previous = load_previous();
    LocalStorage::delete(PREVIOUS_KEY);
    previous
}

#[cfg(target_arch = "wasm32")]
/// The saved theme ("light" / "dark"), if the user picked one (stored as the bare word).
pub fn load_theme() -> Option<String> {
    LocalStorage::raw().get_item(THEME_KEY).ok().flatten()
}

#[cfg(target_arch = "wasm32")]
/// Saves the theme choice.
pub fn save_theme(theme: &str) {
    let _ = LocalStorage::raw().set_item(THEME_KEY, theme);
}

#[cfg(target_arch = "wasm32")]
/// The page's current fragment.
pub fn current_fragment() -> String {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
}

#[cfg(target_arch = "wasm32")]
/// Replaces the fragment without adding a history entry.
pub fn set_fragment(fragment: &str) {
    if let Some(w) = web_sys::window() {
        if let Ok(h) = w.history() {
            let url = format!("#{fragment}");
            let _ = h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
        }
    }
}

#[cfg(target_arch = "wasm32")]
/// The full share URL for a state.
pub fn url(state: &State) -> String {
    let base = web_sys::window()
        .and_then(|w| w.location().href().ok())
        .map(|h| h.split('#').next().unwrap_or("").to_string())
        .unwrap_or_default();
    format!("{base}#{}", encode(state))
}

/// The CLI command that replays a playground state evaluated at `at` with the engine
/// `options` (its what-ifs): one line of printable ASCII, every value one POSIX shell word.
/// The what-ifs come from share links anyone can craft, so a value must neither run anything
/// in the shell the line is pasted into nor end the YAML comment the export writes it in.
pub fn replay_command(at: &str, options: &serde_json::Value) -> String {
    let mut line = format!("fleet-policy evaluate --at {}", shell_word(at));
    for key in ["fail", "pending", "skip", "events"] {
        if let Some(v) = options
            .get(key)
            .filter(|v| v.as_array().is_some_and(|a| !a.is_empty()))
        {
            line.push_str(" --set ");
            line.push_str(&shell_word(&format!("{key}={}", ascii_json(v))));
        }
    }
    line.push_str(" THIS_FILE --format json");
    line
}

/// `value` as JSON in printable ASCII: everything else (control characters, DEL, line
/// separators such as U+0085 and U+2028 that YAML readers take as line breaks, and any other
/// non-ASCII character) as `\uXXXX`, which only occurs inside JSON strings.
fn ascii_json(value: &serde_json::Value) -> String {
    let json = serde_json::to_string(value).unwrap_or_default();
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if matches!(c, ' '..='~') {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{u:04x}"));
            }
        }
    }
    out
}

/// One word for a POSIX shell: single-quoted (nothing inside is special), each `'` written as
/// `'\''` (close, escaped quote, reopen).
fn shell_word(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the docs embed writes for a budgets example (URLSearchParams escapes the colons).
    const EMBED: &str = "#yaml=YXBpVmVyc2lvbjoga2FycGVudGVyLnNoL3YxCmtpbmQ6IE5vZGVQb29sCm1ldGFkYXRhOgogIG5hbWU6IGRlZmF1bHQgIyDDqQo&view=budgets&at=2026-03-04T12%3A00%3A00Z&v=0.1.0";
    const YAML: &str =
        "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: default # é\n";

    fn embed(fragment: &str) -> Decoded {
        match decode(fragment) {
            Some(Ok(d)) => d,
            other => panic!("{fragment}: {other:?}"),
        }
    }

    #[test]
    fn an_embed_link_opens_its_yaml_view_and_instant() {
        let d = embed(EMBED);
        assert_eq!(d.version, "0.1.0");
        assert_eq!(&*d.state.policy, YAML);
        assert_eq!(&*d.state.fleet, "");
        assert_eq!(d.state.view, View::Disruption);
        assert_eq!(d.state.at.as_deref(), Some("2026-03-04T12:00:00Z"));
        assert_eq!(d.state.what_if, Default::default());
        assert_eq!(d.state.example, None);
    }

    #[test]
    fn an_embed_link_puts_the_fleet_in_the_fleet_editor_and_the_rest_in_the_policy_editor() {
        let yaml = "# two clusters and a placement\napiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {name: a}\n---\napiVersion: placement.kubernetes-fleet.io/v1\nkind: ClusterResourcePlacement\nmetadata: {name: web}\n--- # b\napiVersion: cluster.kubernetes-fleet.io/v1\nkind: \"MemberCluster\"\nmetadata: {name: b}\n";
        let fragment = format!("yaml={}&view=placement", URL_SAFE_NO_PAD.encode(yaml));
        let d = embed(&fragment);
        assert_eq!(
            &*d.state.fleet,
            "# two clusters and a placement\napiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {name: a}\n---\napiVersion: cluster.kubernetes-fleet.io/v1\nkind: \"MemberCluster\"\nmetadata: {name: b}\n"
        );
        assert_eq!(
            &*d.state.policy,
            "apiVersion: placement.kubernetes-fleet.io/v1\nkind: ClusterResourcePlacement\nmetadata: {name: web}\n"
        );
    }

    #[test]
    fn embed_views_map_onto_the_playground_views() {
        let with_view = |v: &str| embed(&EMBED.replace("view=budgets", v)).state.view;
        assert_eq!(with_view("view=placement"), View::Placement);
        assert_eq!(with_view("view=rollout"), View::Rollout);
        assert_eq!(with_view("view=disruption"), View::Disruption);
        assert_eq!(
            with_view("view=gantt"),
            View::Placement,
            "unknown view: default"
        );
        assert_eq!(with_view("x=1"), View::Placement, "no view: default");
    }

    #[test]
    fn embed_links_without_version_or_time_or_with_padding_still_open() {
        let d = embed("yaml=eDogMQo&view=rollout");
        assert_eq!(&*d.state.policy, "x: 1\n");
        assert_eq!(
            d.version, "unknown",
            "shown as another version, as share links are"
        );
        assert_eq!(d.state.at, None);
        // A padded value (escaped by URLSearchParams) and an instant that does not parse.
        let d = embed("yaml=eDogMQ%3D%3D&at=yesterday");
        assert_eq!(&*d.state.policy, "x: 1");
        assert_eq!(d.state.at, None);
        let d = embed("yaml=eDogMQo&at=2026-03-04T13%3A00%3A00%2B01%3A00");
        assert_eq!(d.state.at.as_deref(), Some("2026-03-04T13:00:00+01:00"));
    }

    #[test]
    fn damaged_embed_links_are_errors_and_other_fragments_are_none() {
        assert!(matches!(decode("#yaml=***"), Some(Err(e)) if e.contains("base64")));
        // 0xff is not UTF-8.
        assert!(matches!(decode("#yaml=_w"), Some(Err(e)) if e.contains("UTF-8")));
        assert_eq!(decode("#view=budgets&at=2026-03-04T12%3A00%3A00Z"), None);
        assert_eq!(decode(""), None);
    }

    #[test]
    fn share_links_still_round_trip_and_win_over_embed_fields() {
        let state = State {
            fleet: "a: 1\n".into(),
            policy: "b: 2\n".into(),
            at: Some("2024-03-09T12:00:00Z".into()),
            view: View::Rollout,
            ..State::default()
        };
        let fragment = encode(&state);
        let d = embed(&format!("#{fragment}"));
        assert_eq!(d.state, state);
        assert_eq!(d.version, fleet_policy::VERSION);
        let d = embed(&format!("#{fragment}&yaml=eDogMQo&view=placement"));
        assert_eq!(d.state, state);
    }

    #[test]
    fn form_values_are_unescaped() {
        assert_eq!(form_decode("a+b%20c%3A%zz%4"), "a b c:%zz%4");
        assert_eq!(form_decode("%C3%A9"), "é");
    }
    /// What-ifs as a crafted share link may set them, in the engine options the playground
    /// makes of them (`evaluation::options_json`).
    fn hostile_options() -> serde_json::Value {
        serde_json::json!({
            "at": "2026-03-02T08:00:00Z",
            "fail": ["$(touch pwned1)", "`touch pwned2`", "a; touch pwned3", "it's \"quoted\" \\"],
            "pending": ["x\nkind: Injected\n---", "nel\u{85}kind: X"],
            "skip": ["é ✓\u{2028}\u{7f}"],
            "events": [{"action": "approve", "request": "r'; touch pwned4; echo '"}],
        })
    }

    #[test]
    fn the_replay_command_is_one_line_of_printable_ascii() {
        let line = replay_command("2026-03-02T08:00:00Z", &hostile_options());
        assert!(line.chars().all(|c| matches!(c, ' '..='~')), "{line}");
        assert_eq!(
            line,
            r#"fleet-policy evaluate --at '2026-03-02T08:00:00Z' --set 'fail=["$(touch pwned1)","`touch pwned2`","a; touch pwned3","it'\''s \"quoted\" \\"]' --set 'pending=["x\nkind: Injected\n---","nel\u0085kind: X"]' --set 'skip=["\u00e9 \u2713\u2028\u007f"]' --set 'events=[{"action":"approve","request":"r'\''; touch pwned4; echo '\''"}]' THIS_FILE --format json"#
        );
        assert_eq!(
            replay_command(
                "2026-03-02T08:00:00Z",
                &serde_json::json!({"fail": [], "events": []})
            ),
            "fleet-policy evaluate --at '2026-03-02T08:00:00Z' THIS_FILE --format json"
        );
    }

    #[test]
    fn bash_runs_the_replay_command_as_one_command_with_every_value_intact() {
        let options = hostile_options();
        let line = replay_command("2026-03-02T08:00:00Z", &options);
        let dir = std::env::temp_dir().join(format!("fleet-replay-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        if let Err(e) = std::fs::create_dir_all(&dir) {
            panic!("cannot create {}: {e}", dir.display());
        }
        // The CLI stands in as a function printing its arguments, one per line.
        let script = format!("fleet-policy() {{ printf '%s\\n' \"$@\"; }}\n{line}\n");
        let out = match std::process::Command::new("bash")
            .arg("-c")
            .arg(&script)
            .current_dir(&dir)
            .output()
        {
            Ok(o) => o,
            Err(e) => panic!("cannot run bash: {e}"),
        };
        let created: Vec<_> = std::fs::read_dir(&dir)
            .map(|d| d.filter_map(Result::ok).map(|e| e.file_name()).collect())
            .unwrap_or_default();
        let _ = std::fs::remove_dir_all(&dir);
        assert!(created.is_empty(), "the replay command created {created:?}");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        let args: Vec<&str> = stdout.lines().collect();
        assert_eq!(args.len(), 3 + 4 * 2 + 3, "{args:?}");
        assert_eq!(args[..3], ["evaluate", "--at", "2026-03-02T08:00:00Z"]);
        assert_eq!(args[11..], ["THIS_FILE", "--format", "json"]);
        // Each --set reads back (as the CLI reads a value: JSON) to exactly the option.
        for (i, key) in ["fail", "pending", "skip", "events"].iter().enumerate() {
            assert_eq!(args[3 + 2 * i], "--set");
            let Some(value) = args[4 + 2 * i].strip_prefix(&format!("{key}=")) else {
                panic!("--set {key} expected: {args:?}");
            };
            let value: serde_json::Value = serde_json::from_str(value).unwrap_or_default();
            assert_eq!(value, options[key], "{key}");
        }
    }

    #[test]
    fn share_links_whose_what_ifs_hold_control_characters_are_refused() {
        let mut state = State::default();
        state.what_if.fail = vec!["a\nkind: Injected".into()];
        let fragment = encode(&state);
        assert_eq!(
            decode(&fragment),
            Some(Err(
                "the link's what-ifs are not understood: \"a\\nkind: Injected\" holds a control character".into()
            ))
        );
        state.what_if.fail = vec!["$(touch x) 'quoted'".into()];
        assert!(matches!(decode(&encode(&state)), Some(Ok(d)) if d.state == state));
    }
}
