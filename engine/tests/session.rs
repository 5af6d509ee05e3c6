//! The incremental session gives what reading and evaluating the final text from scratch
//! gives, after every edit of a sequence: typing at the end of a kubectl list, in an item, in a
//! comment, new documents, broken YAML, and random edits (proptest).

use fleet_policy::session::{Session, Unchanged};
use fleet_policy::{EvaluateOptions, Input, Source};
use proptest::prelude::*;

fn at() -> EvaluateOptions {
    at_instant("2026-03-04T12:00:00Z")
}

fn at_instant(t: &str) -> EvaluateOptions {
    let t = chrono::DateTime::parse_from_rfc3339(t)
        .map(|t| t.to_utc())
        .unwrap_or_default();
    EvaluateOptions::at(t)
}

/// `kubectl get memberclusters -o yaml` for `n` clusters (as the playground's browser test).
fn kubectl_fleet(n: usize) -> String {
    let regions = ["eastus", "westus", "westeurope"];
    let mut items = Vec::new();
    for i in 0..n {
        items.push(format!(
            "- apiVersion: cluster.kubernetes-fleet.io/v1beta1
  kind: MemberCluster
  metadata:
    labels: {{fleet.azure.com/location: {region}, env: {env}}}
    name: member-{i:03}
  spec: {{heartbeatPeriodSeconds: 60}}
  status:
    agentStatus:
    - conditions:
      - {{lastTransitionTime: \"2025-11-10T09:13:20Z\", reason: MemberAgentJoined, status: \"True\", type: Joined}}
      - {{lastTransitionTime: \"2025-11-10T09:13:20Z\", reason: MemberAgentHealthy, status: \"True\", type: Healthy}}
      lastReceivedHeartbeat: \"2026-03-04T11:58:{m:02}Z\"
      type: MemberAgent
    properties:
      kubernetes-fleet.io/node-count:
        value: \"{count}\"
",
            region = regions[i % 3],
            env = if i % 3 == 0 { "staging" } else { "prod" },
            m = i % 60,
            count = (i * 7) % 50 + 1,
        ));
    }
    format!(
        "apiVersion: v1\nitems:\n{}kind: List\nmetadata: {{resourceVersion: \"\"}}\n",
        items.concat()
    )
}

const POLICY: &str = "apiVersion: placement.kubernetes-fleet.io/v1
kind: ClusterResourcePlacement
metadata: {name: big}
spec:
  policy:
    placementType: PickN
    numberOfClusters: 5
    affinity:
      clusterAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          clusterSelectorTerms:
            - labelSelector: {matchLabels: {env: prod}}
        preferredDuringSchedulingIgnoredDuringExecution:
          - weight: 60
            preference:
              propertySorter: {name: kubernetes-fleet.io/node-count, sortOrder: Descending}
# typing here:
";

fn sources(fleet: &str, policy: &str) -> [Source; 2] {
    [Source::new("fleet", fleet), Source::new("policy", policy)]
}

/// Updates the session and checks it against reading and evaluating from scratch; returns
/// whether the session said the input changed.
fn check(session: &mut Session, fleet: &str, policy: &str, what: &str) -> bool {
    check_at(session, fleet, policy, what, &at())
}

fn check_at(
    session: &mut Session,
    fleet: &str,
    policy: &str,
    what: &str,
    o: &EvaluateOptions,
) -> bool {
    let s = sources(fleet, policy);
    let changed = update_as_the_page(session, fleet, policy);
    let whole = Input::parse(&s);
    assert!(
        session.input() == &whole,
        "{what}: input differs from reading the whole text"
    );
    assert_eq!(session.snapshot(), whole.snapshot(), "{what}: snapshot");
    let report = session.evaluate(o);
    assert!(
        *report == fleet_policy::evaluate_input(&whole, o),
        "{what}: report differs from evaluating the whole text"
    );
    changed
}

thread_local! {
    /// The texts last handed to a session, as the playground's state holds them.
    static SHARED: std::cell::RefCell<Vec<std::rc::Rc<str>>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Updates the session as the page does (`Session::update_edited`): the text of an editor
/// not typed in is the same `Rc` as before (known unchanged without comparing), an edited
/// one a new text, with what the page knows of where it was edited: in turn the longest
/// common start and end of the two texts (which may overlap), less than that, and nothing.
fn update_as_the_page(session: &mut Session, fleet: &str, policy: &str) -> bool {
    let (texts, known): (Vec<std::rc::Rc<str>>, Vec<Unchanged>) = SHARED.with(|last| {
        let last = last.borrow();
        [fleet, policy]
            .iter()
            .enumerate()
            .map(|(i, t)| match last.get(i) {
                Some(l) if **l == **t => (l.clone(), Unchanged::default()),
                Some(l) => (std::rc::Rc::from(*t), known_of(l, t)),
                None => (std::rc::Rc::from(*t), Unchanged::default()),
            })
            .unzip()
    });
    SHARED.with(|last| *last.borrow_mut() = texts.clone());
    let named: Vec<(&str, std::rc::Rc<str>)> = ["fleet", "policy"].into_iter().zip(texts).collect();
    session.update_edited(&named, &known)
}

thread_local! {
    static KNOWN: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// What the page may know of an edit from `old` to `new` (see `update_as_the_page`).
fn known_of(old: &str, new: &str) -> Unchanged {
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let turn = KNOWN.with(|k| k.replace(k.get() + 1));
    match turn % 3 {
        0 => Unchanged { prefix, suffix },
        1 => Unchanged {
            prefix: prefix * 2 / 3,
            suffix: suffix / 2,
        },
        _ => Unchanged::default(),
    }
}

#[test]
fn a_sequence_of_edits_gives_the_report_of_the_final_text() {
    let mut fleet = kubectl_fleet(30);
    let mut policy = POLICY.to_string();
    let mut s = Session::new();
    assert!(check(&mut s, &fleet, &policy, "first read"));
    let report = s.evaluate(&at());
    assert_eq!(report.placements[0].picked.len(), 5);

    // Blank space typed after the list and a comment typed in the policy change nothing
    // read: the same report is handed back.
    fleet.push('\n');
    for _ in 0..3 {
        fleet.push(' ');
        assert!(!check(&mut s, &fleet, &policy, "space after the list"));
    }
    policy.push('#');
    assert!(!check(&mut s, &fleet, &policy, "comment in the policy"));
    assert!(std::rc::Rc::ptr_eq(&report, &s.evaluate(&at())));

    // A label value edited inside item 7: the pick changes.
    let at7 = fleet.find("name: member-007").unwrap_or(0);
    let env = fleet[..at7].rfind("env: prod").unwrap_or(0);
    fleet.replace_range(env..env + "env: prod".len(), "env: staging");
    assert!(check(&mut s, &fleet, &policy, "label edited in an item"));

    // A new line inside an item shifts every later item; a removed one shifts them back.
    let at10 = fleet.find("name: member-010").unwrap_or(0);
    fleet.insert(at10, '\n');
    fleet.insert_str(at10 + 1, "    ");
    assert!(check(&mut s, &fleet, &policy, "blank line in an item"));
    fleet.replace_range(at10..at10 + 5, "");
    assert!(check(&mut s, &fleet, &policy, "blank line removed"));

    // The number of clusters wanted, typed digit by digit.
    for (from, to) in [
        ("numberOfClusters: 5", "numberOfClusters: 1"),
        ("numberOfClusters: 1", "numberOfClusters: 12"),
    ] {
        policy = policy.replacen(from, to, 1);
        assert!(check(&mut s, &fleet, &policy, to));
    }
    assert_eq!(s.evaluate(&at()).placements[0].picked.len(), 12);

    // A day later every heartbeat is stale (a notice that reads the whole input's snapshot),
    // and back; a property value that is not a quantity aborts the cycle, and is repaired.
    let later = at_instant("2026-03-05T12:00:00Z");
    check_at(&mut s, &fleet, &policy, "a day later", &later);
    policy.push_str("# again\n");
    check_at(
        &mut s,
        &fleet,
        &policy,
        "a day later, policy edited",
        &later,
    );
    check(&mut s, &fleet, &policy, "back at the snapshot");
    let count = fleet.find("value: \"").unwrap_or(0) + "value: \"".len();
    fleet.insert(count, 'x');
    check(&mut s, &fleet, &policy, "not a quantity");
    assert!(s.evaluate(&at()).placements[0].cycle_error.is_some());
    fleet.replace_range(count..count + 1, "");
    check(&mut s, &fleet, &policy, "a quantity again");

    // A broken item, then repaired; a duplicate key; an item that is not a mapping.
    let at3 = fleet.find("name: member-003").unwrap_or(0);
    fleet.insert_str(at3, "{oops: ");
    assert!(check(&mut s, &fleet, &policy, "broken item"));
    fleet.replace_range(at3..at3 + 7, "");
    assert!(check(&mut s, &fleet, &policy, "repaired"));
    fleet.insert_str(at3, "name: twice\n    ");
    check(&mut s, &fleet, &policy, "duplicate key in an item");
    fleet.replace_range(at3..at3 + "name: twice\n    ".len(), "");
    check(&mut s, &fleet, &policy, "duplicate removed");

    // An item added at the end of the list, a document before the list, the list's kind
    // changed and restored, the policy moved into the fleet editor.
    let end = fleet.find("kind: List").unwrap_or(0);
    fleet.insert_str(
        end,
        "- apiVersion: cluster.kubernetes-fleet.io/v1beta1\n  kind: MemberCluster\n  metadata: {name: extra, labels: {env: prod}}\n",
    );
    check(&mut s, &fleet, &policy, "item added");
    fleet.insert_str(
        0,
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: ns}\n---\n",
    );
    check(&mut s, &fleet, &policy, "document before the list");
    fleet = fleet.replacen("kind: List", "kind: Lust", 1);
    check(&mut s, &fleet, &policy, "not a list");
    fleet = fleet.replacen("kind: Lust", "kind: List", 1);
    check(&mut s, &fleet, &policy, "a list again");
    fleet = format!("{fleet}---\n{policy}");
    check(&mut s, &fleet, "", "policy in the fleet editor");
    check(&mut s, "", "", "both empty");
}

/// An edit: remove `len` bytes at `at` (a fraction of the text) and insert `text`.
fn edit(text: &mut String, at: f64, len: usize, insert: &str) {
    let mut at = ((text.len() as f64) * at) as usize;
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let mut end = (at + len).min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.replace_range(at..end, insert);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
    #[test]
    fn random_edits_give_the_report_of_the_final_text(
        edits in prop::collection::vec(
            (any::<bool>(), 0.0..1.0f64, 0usize..12, prop::sample::select(vec![
                "", " ", "\n", "#", "x", "-", "- ", ": ", "  ", "\n- ", "'", "{", "---\n", "\t",
                "items:\n", "kind: List\n", "\n  kind: MemberCluster\n", "&a ", "*a",
                "member-00", "labels: 5\n    ",
                "- apiVersion: cluster.kubernetes-fleet.io/v1beta1\n  kind: MemberCluster\n  metadata: {name: new}\n",
            ])),
            1..12,
        )
    ) {
        let mut fleet = kubectl_fleet(8);
        let mut policy = POLICY.to_string();
        let mut s = Session::new();
        check(&mut s, &fleet, &policy, "first read");
        for (k, (in_fleet, at, len, insert)) in edits.into_iter().enumerate() {
            edit(if in_fleet { &mut fleet } else { &mut policy }, at, len, insert);
            check(&mut s, &fleet, &policy, &format!("edit {k}"));
        }
    }
}

#[test]
fn a_new_heartbeat_timeout_decides_eligibility_again() {
    // The heartbeats are 11:58:00–11:58:29 (member-000 … member-029); at 12:00 a 105.5 s
    // check timeout leaves eligible only the clusters that beat at 11:58:15 or later.
    let fleet = kubectl_fleet(30);
    let mut s = Session::new();
    assert!(check(&mut s, &fleet, POLICY, "first read"));
    let picked = |s: &mut Session, o: &EvaluateOptions| -> Vec<String> {
        let r = s.evaluate(o);
        r.placements[0]
            .picked
            .iter()
            .map(|p| p.cluster.to_string())
            .collect()
    };
    assert!(picked(&mut s, &at())
        .iter()
        .any(|c| c.as_str() < "member-015"));
    let mut short = at();
    short.place.cluster_heartbeat_check_timeout =
        fleet_policy::placement::eligibility::CheckTimeout::try_from("105500ms".to_string())
            .unwrap_or_default();
    check_at(
        &mut s,
        &fleet,
        POLICY,
        "a 105.5 s heartbeat timeout",
        &short,
    );
    let late = picked(&mut s, &short);
    assert_eq!(late.len(), 5);
    assert!(late.iter().all(|c| c.as_str() >= "member-015"), "{late:?}");
    check_at(&mut s, &fleet, POLICY, "back to the default", &at());
}

#[test]
fn an_empty_item_typed_before_the_first_one_is_located_as_a_whole_read_locates_it() {
    let fleet = kubectl_fleet(8);
    let mut s = Session::new();
    check(&mut s, &fleet, POLICY, "first read");
    let fleet = fleet.replacen("items:\n", "items:\n- \n", 1);
    check(&mut s, &fleet, POLICY, "an empty item");
    let errors: Vec<&str> = s
        .input()
        .diagnostics
        .iter()
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(
        errors,
        ["a manifest must be a mapping with apiVersion, kind and metadata"]
    );
}

/// Only the edited item is decoded again; what the others decoded to (a cluster, a duplicate
/// name, an error) is what decoding them again gives.
#[test]
fn an_edit_in_one_item_keeps_what_the_other_items_decoded_to() {
    let mut fleet = kubectl_fleet(12);
    let policy = POLICY.to_string();
    let mut s = Session::new();
    check(&mut s, &fleet, &policy, "first read");
    // Item 5 takes item 1's name (a duplicate: only the first is used), and item 8's labels
    // do not decode.
    fleet = fleet.replacen("name: member-005", "name: member-001", 1);
    check(&mut s, &fleet, &policy, "a duplicate name");
    let at8 = fleet.find("name: member-008").unwrap_or(0);
    let labels = fleet[..at8].rfind("labels: {").unwrap_or(0);
    fleet.insert_str(labels + "labels: {".len(), "a: [1], ");
    check(&mut s, &fleet, &policy, "labels that do not decode");
    let report = s.evaluate(&at());
    let errors: Vec<&str> = report.errors.iter().map(|e| e.message.as_str()).collect();
    assert_eq!(
        errors,
        [
            "duplicate MemberCluster \"member-001\": only the first one is used",
            "expected a string, found a list"
        ]
    );
    // A label edited in item 2, twice: items 1, 5 and 8 are kept as they decoded.
    for (from, to) in [("env: prod", "env: staging"), ("env: staging", "env: prod")] {
        let at2 = fleet.find("name: member-002").unwrap_or(0);
        let env = fleet[..at2].rfind(from).unwrap_or(0);
        fleet.replace_range(env..env + from.len(), to);
        check(&mut s, &fleet, &policy, "label edited in item 2");
    }
    // Item 1 renamed: item 5 is no longer a duplicate and joins the fleet; then back.
    fleet = fleet.replacen("name: member-001", "name: member-101", 1);
    check(&mut s, &fleet, &policy, "the first of the two renamed");
    let report = s.evaluate(&at());
    assert!(!report
        .errors
        .iter()
        .any(|e| e.message.contains("duplicate")));
    fleet = fleet.replacen("name: member-101", "name: member-001", 1);
    check(&mut s, &fleet, &policy, "renamed back");
    // Item 8 repaired.
    fleet = fleet.replacen("a: [1], ", "", 1);
    check(&mut s, &fleet, &policy, "labels repaired");
}

#[test]
fn a_document_keeps_its_id_until_its_text_is_read_again() {
    let fleet = kubectl_fleet(6);
    let mut session = Session::new();
    session.update(&sources(&fleet, POLICY));
    let before = session.document_ids().to_vec();
    let names = |s: &Session| -> Vec<Option<String>> {
        s.input().documents.iter().map(|d| d.name.clone()).collect()
    };
    assert_eq!(before.len(), session.input().documents.len());
    let kinds: Vec<&str> = session.input().documents.iter().map(|d| &*d.kind).collect();
    assert_eq!(kinds.iter().filter(|k| **k == "MemberCluster").count(), 6);
    // A label of member-003 edited: that item alone gets a new id.
    let edited = fleet.replacen("member-003", "member-003x", 1);
    session.update(&sources(&edited, POLICY));
    let after = session.document_ids().to_vec();
    assert_eq!(after.len(), before.len());
    let renamed = names(&session)
        .iter()
        .position(|n| n.as_deref() == Some("member-003x"));
    let changed: Vec<usize> = (0..after.len())
        .filter(|&i| after[i] != before[i])
        .collect();
    assert!(renamed.is_some(), "the edited item is read");
    assert_eq!(changed, renamed.into_iter().collect::<Vec<_>>());
    // A comment in the policy: the policy is read again, the fleet's documents keep theirs.
    session.update(&sources(&edited, &format!("{POLICY}# a comment\n")));
    let commented = session.document_ids().to_vec();
    assert_eq!(commented[..6], after[..6]);
    assert_ne!(commented[6], after[6]);
    // Ids are never given twice.
    let mut all = before.clone();
    all.extend(&after);
    all.extend(&commented);
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), before.len() + 2);
}

/// A keystroke inside one item's indented lines reads that item only: every other document
/// keeps its id (what the playground keeps per document), the result is the whole read's,
/// also for the last item of a text without a final newline and for edits that add a line
/// or leave the item's indentation.
#[test]
fn a_keystroke_inside_one_item_reads_that_item_only() {
    let mut fleet = kubectl_fleet(6);
    let policy = POLICY.to_string();
    let mut s = Session::new();
    check(&mut s, &fleet, &policy, "first read");
    let ids = |s: &Session| s.document_ids().to_vec();
    let item = |fleet: &str, name: &str| fleet.find(name).unwrap_or(0);

    // Within a line of item 3 (its labels), then the edit undone.
    let before = ids(&s);
    let at3 = item(&fleet, "name: member-003");
    let env = fleet[..at3].rfind("env: ").unwrap_or(0) + "env: ".len();
    fleet.insert(env, 'x');
    assert!(check(&mut s, &fleet, &policy, "a label of item 3"));
    let after = ids(&s);
    assert_eq!(before.len(), after.len());
    let kept: Vec<bool> = before.iter().zip(&after).map(|(a, b)| a == b).collect();
    // Six items, then the policy.
    assert_eq!(kept, [true, true, true, false, true, true, true]);
    fleet.remove(env);
    assert!(check(&mut s, &fleet, &policy, "item 3 as it was"));

    // The heartbeat of the last item, in a text that ends without a newline.
    // (The list's kind and metadata moved before its items.)
    let tail = fleet.find("kind: List").unwrap_or(fleet.len());
    let items = fleet[..tail].replacen("apiVersion: v1\nitems:\n", "", 1);
    let last = format!(
        "apiVersion: v1\n{}items:\n{}",
        &fleet[tail..],
        items.trim_end()
    );
    check(&mut s, &last, &policy, "no final newline");
    let before = ids(&s);
    let mut edited = last.clone();
    let count = edited.rfind("value: \"").unwrap_or(0) + "value: \"".len();
    edited.insert(count, '1');
    check(&mut s, &edited, &policy, "the last item's node count");
    let after = ids(&s);
    assert_eq!(before[..5], after[..5]);
    assert_ne!(before[5], after[5]);
    assert_eq!(before[6], after[6]);

    // A line added inside item 2, and a line moved out to column 0 (an item's structure
    // changes): read as a whole read reads them.
    let at2 = item(&fleet, "name: member-002");
    let spec = at2 + fleet[at2..].find("  spec:").unwrap_or(0);
    fleet.insert_str(spec, "  annotations: {a: b}\n");
    check(&mut s, &fleet, &policy, "a line added in item 2");
    let status = at2 + fleet[at2..].find("  status:").unwrap_or(0);
    fleet.replace_range(status..status + 2, "");
    check(&mut s, &fleet, &policy, "status at column 0");
}

/// `kubectl get memberclusters -o json` for `n` clusters: the same list as [`kubectl_fleet`],
/// printed as kubectl prints JSON (four-space indentation, each item on lines of its own).
fn kubectl_json_fleet(n: usize) -> String {
    let list = fleet_policy::input::documents::yaml_to_json(&kubectl_fleet(n)).unwrap_or_default();
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b"    ");
    let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
    serde::Serialize::serialize(&list, &mut ser).unwrap_or_default();
    format!("{}\n", String::from_utf8(out).unwrap_or_default())
}

/// The same for a `-o json` dump: a keystroke inside one item reads that item only (its
/// documents get new ids, the others keep theirs), and edits that break the list's shape —
/// a comma taken away or added, the last item removed, an item's braces — are read as a
/// whole read reads them.
#[test]
fn a_keystroke_inside_one_json_item_reads_that_item_only() {
    let mut fleet = kubectl_json_fleet(6);
    let policy = POLICY.to_string();
    let mut s = Session::new();
    check(&mut s, &fleet, &policy, "first read");
    assert_eq!(s.input().documents.len(), 7);
    let ids = |s: &Session| s.document_ids().to_vec();
    let before = ids(&s);
    let at3 = fleet.find("\"name\": \"member-003\"").unwrap_or(0);
    let env = fleet[..at3].rfind("\"env\": \"").unwrap_or(0) + "\"env\": \"".len();
    fleet.insert(env, 'x');
    assert!(check(&mut s, &fleet, &policy, "a label of item 3"));
    let kept: Vec<bool> = before.iter().zip(&ids(&s)).map(|(a, b)| a == b).collect();
    assert_eq!(kept, [true, true, true, false, true, true, true]);
    let report = s.evaluate(&at());
    assert!(!report.placements[0]
        .picked
        .iter()
        .any(|p| &*p.cluster == "member-003"));
    fleet.remove(env);
    assert!(check(&mut s, &fleet, &policy, "item 3 as it was"));

    // The comma after item 1 taken away, then put back; one added after the last item.
    let comma = fleet.find("\n        },\n").unwrap_or(0) + "\n        }".len();
    fleet.remove(comma);
    check(&mut s, &fleet, &policy, "a comma taken away");
    assert!(
        !s.input().diagnostics.is_empty(),
        "not JSON, and not YAML either"
    );
    fleet.insert(comma, ',');
    check(&mut s, &fleet, &policy, "the comma back");
    assert_eq!(s.input().documents.len(), 7);
    let last = fleet.rfind("\n        }\n").unwrap_or(0) + "\n        }".len();
    fleet.insert(last, ',');
    check(&mut s, &fleet, &policy, "a comma after the last item");
    fleet.remove(last);
    check(&mut s, &fleet, &policy, "the last item's comma gone");
    // The last item removed (the one before keeps its comma), then the comma too.
    let last_start = fleet.rfind("\n        {\n").unwrap_or(0) + 1;
    let mut shorter = fleet.clone();
    shorter.replace_range(last_start..last + 1, "");
    check(&mut s, &shorter, &policy, "the last item removed");
    let dangling = shorter.rfind("\n        },\n").unwrap_or(0) + "\n        }".len();
    shorter.remove(dangling);
    check(&mut s, &shorter, &policy, "and its comma");
    assert_eq!(s.input().documents.len(), 6);
    // An item's closing brace moved into a nested object's line; a new item typed in.
    let brace = fleet.find("\n        },\n").unwrap_or(0) + 1;
    let mut braces = fleet.clone();
    braces.replace_range(brace..brace + 8, "");
    check(&mut s, &braces, &policy, "a brace's indentation");
    let new = "        {\"apiVersion\": \"cluster.kubernetes-fleet.io/v1beta1\", \"kind\": \"MemberCluster\", \"metadata\": {\"name\": \"new\", \"labels\": {\"env\": \"prod\"}}},\n";
    let first = fleet.find("\n        {\n").unwrap_or(0) + 1;
    fleet.insert_str(first, new);
    check(&mut s, &fleet, &policy, "a new first item");
    assert_eq!(s.input().documents.len(), 8);
    // Nesting counts the list around an item read alone: 1,000 levels read, 1,001 refused.
    for arrays in [997, 998] {
        let deep = format!(
            "        {{\n            \"kind\": \"Namespace\", \"apiVersion\": \"v1\", \"metadata\": {{\"name\": \"deep\"}}, \"x\": {}{}\n        }},\n",
            "[".repeat(arrays),
            "]".repeat(arrays)
        );
        let mut nested = kubectl_json_fleet(6);
        nested.insert_str(first, &deep);
        check(&mut s, &nested, &policy, &format!("{arrays} arrays deep"));
        assert_eq!(s.input().diagnostics.is_empty(), arrays == 997);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
    /// Random edits of a `-o json` fleet give what reading the final text whole gives.
    #[test]
    fn random_edits_of_a_json_list_give_the_report_of_the_final_text(
        edits in prop::collection::vec(
            (0.0..1.0f64, 0usize..12, prop::sample::select(vec![
                "", " ", "\n", ",", "{", "}", "[", "]", "\"", "x", ": ", "\\", "null", "é",
                "\"env\": \"prod\", ", "},\n        {", "\n        },\n", "---\n", "# c\n",
                "\n        {\"kind\": \"MemberCluster\", \"apiVersion\": \"cluster.kubernetes-fleet.io/v1beta1\", \"metadata\": {\"name\": \"new\"}},",
            ])),
            1..12,
        )
    ) {
        let mut fleet = kubectl_json_fleet(6);
        let mut s = Session::new();
        check(&mut s, &fleet, POLICY, "first read");
        for (k, (at, len, insert)) in edits.into_iter().enumerate() {
            edit(&mut fleet, at, len, insert);
            check(&mut s, &fleet, POLICY, &format!("edit {k}"));
        }
    }
}

/// Typing after a list's items (its `kind: List`, its metadata, blank space at the end of
/// the editor) reads nothing again while the list stays a list, also when a document comes
/// before the list; typing that makes it something else is read as a whole read reads it.
/// The items of a `-o json` dump, one after another (`jq '.items[]'`).
fn jq_items(n: usize) -> String {
    let list: serde_json::Value = serde_json::from_str(&kubectl_json_fleet(n)).unwrap_or_default();
    let items = list["items"].as_array().cloned().unwrap_or_default();
    let texts: Vec<String> = items
        .iter()
        .map(|i| serde_json::to_string_pretty(i).unwrap_or_default())
        .collect();
    format!("{}\n", texts.join("\n"))
}

/// JSON objects one after another in the playground read as the whole text reads them: one
/// manifest each, a label typed in one of them, one of them broken and mended.
#[test]
fn json_objects_one_after_another_are_read_as_a_whole_read_reads_them() {
    let mut fleet = jq_items(4);
    let policy = POLICY.to_string();
    let mut s = Session::new();
    check(&mut s, &fleet, &policy, "first read");
    assert_eq!(s.input().documents.len(), 5);
    let at2 = fleet.find("\"name\": \"member-002\"").unwrap_or(0);
    let env = fleet[..at2].rfind("\"env\": \"").unwrap_or(0) + "\"env\": \"".len();
    fleet.insert(env, 'x');
    check(&mut s, &fleet, &policy, "a label of object 2");
    let report = s.evaluate(&at());
    let picked: Vec<&str> = report.placements[0]
        .picked
        .iter()
        .map(|p| &*p.cluster)
        .collect();
    assert!(
        !picked.contains(&"member-002") && picked.contains(&"member-001"),
        "{picked:?}"
    );
    // The closing brace of object 1 taken away: objects 0 and the error; then put back.
    let close = fleet[..at2].rfind("\n}\n").unwrap_or(0) + 1;
    fleet.remove(close);
    check(&mut s, &fleet, &policy, "a brace taken away");
    assert!(s
        .input()
        .diagnostics
        .iter()
        .any(|d| d.message.starts_with("invalid JSON")));
    fleet.insert(close, '}');
    check(&mut s, &fleet, &policy, "the brace back");
    assert_eq!(s.input().documents.len(), 5);
}

#[test]
fn typing_after_a_lists_items_keeps_its_items() {
    let policy = POLICY.to_string();
    for before in [
        "",
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: ns}\n---\n",
    ] {
        let mut fleet = format!("{before}{}\n", kubectl_fleet(5));
        let mut s = Session::new();
        check(&mut s, &fleet, &policy, "first read");
        let ids = s.document_ids().to_vec();
        for key in [" ", " ", "#", " x"] {
            fleet.push_str(key);
            assert!(!check(&mut s, &fleet, &policy, "typed after the list"));
            assert_eq!(s.document_ids(), ids);
        }
        let meta = fleet.rfind("resourceVersion").unwrap_or(0);
        fleet.insert_str(meta, "a: b, ");
        assert!(!check(&mut s, &fleet, &policy, "the list's metadata"));
        assert_eq!(s.document_ids(), ids);
        // The list's items key given twice, then not: the list is read whole, then in items.
        fleet.push_str("\nitems: 5");
        check(&mut s, &fleet, &policy, "items twice");
        let end = fleet.len() - "\nitems: 5".len();
        fleet.truncate(end);
        check(&mut s, &fleet, &policy, "items once again");
        fleet.push_str("\n---\nkind: Namespace");
        check(&mut s, &fleet, &policy, "a document after the list");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
    /// The same, with the edits at the end of a fleet whose list follows another document.
    #[test]
    fn random_edits_at_the_end_give_the_report_of_the_final_text(
        edits in prop::collection::vec(
            (0.9..1.0f64, 0usize..6, prop::sample::select(vec![
                "", " ", "\n", "#", "x", "-", "- ", ": ", "  ", "'", "{", "---\n", "...\n",
                "\t", "items:\n", "kind: List\n", "kind: Lust", "  - a", "apiVersion: v1\n",
            ])),
            1..12,
        )
    ) {
        let mut fleet = format!(
            "apiVersion: v1\nkind: Namespace\nmetadata: {{name: ns}}\n---\n{}",
            kubectl_fleet(4)
        );
        let mut s = Session::new();
        check(&mut s, &fleet, POLICY, "first read");
        for (k, (at, len, insert)) in edits.into_iter().enumerate() {
            edit(&mut fleet, at, len, insert);
            check(&mut s, &fleet, POLICY, &format!("edit {k}"));
        }
    }
}

/// An item read on its own nests as deep as in its list: the collections around it count
/// toward the limit (1,000 levels), so an item at the limit is refused as a whole read
/// refuses it, and one just under it is read.
#[test]
fn a_list_item_nested_to_the_limit_reads_as_in_the_whole_list() {
    let base = kubectl_fleet(3);
    let at = base.find("- apiVersion").unwrap_or(0);
    let mut refused = Vec::new();
    for levels in 995..1000 {
        let nested: String = (0..levels)
            .map(|d| format!("{}x:\n", " ".repeat(2 + 2 * d)))
            .collect();
        let deep = format!(
            "- apiVersion: v1\n  kind: Namespace\n  metadata: {{name: deep}}\n{nested}{}1\n",
            " ".repeat(2 + 2 * levels)
        );
        let mut s = Session::new();
        check(&mut s, &base, POLICY, "the list");
        let mut text = base.clone();
        text.insert_str(at, &deep);
        check(
            &mut s,
            &text,
            POLICY,
            &format!("an item {levels} levels deep"),
        );
        refused.push(!s.input().diagnostics.is_empty());
    }
    assert_eq!(refused, [false, false, false, false, true]);
}

/// A typo in one item's key (`labels` → `labelsx`, then `metadata` → `metadatx`) is an error
/// on that item, which is evaluated without the field; fixed, the error goes. Each step
/// gives what reading the whole text gives, with the errors of the other items in place.
#[test]
fn a_typo_in_one_item_is_an_error_there_and_goes_when_fixed() {
    let mut fleet = kubectl_fleet(9);
    let policy = POLICY.to_string();
    let mut s = Session::new();
    check(&mut s, &fleet, &policy, "first read");
    let item = |fleet: &str, i: usize| fleet.find(&format!("name: member-{i:03}")).unwrap_or(0);
    // Item 2 carries an error throughout.
    let at2 = item(&fleet, 2);
    let labels2 = fleet[..at2].rfind("labels: {").unwrap_or(0) + "labels: {".len();
    fleet.insert_str(labels2, "a: [1], ");
    check(&mut s, &fleet, &policy, "item 2's labels do not decode");
    let labels7 = fleet[..item(&fleet, 7)].rfind("labels:").unwrap_or(0) + "labels".len();
    fleet.insert(labels7, 'x');
    check(&mut s, &fleet, &policy, "labelsx in item 7");
    let errors = |s: &mut Session| -> Vec<(String, Option<usize>)> {
        s.evaluate(&at())
            .errors
            .iter()
            .map(|e| (e.path.clone(), e.item))
            .collect()
    };
    assert_eq!(
        errors(&mut s),
        [
            ("metadata.labels.a".to_string(), Some(2)),
            ("metadata.labelsx".to_string(), Some(7))
        ]
    );
    // Item 7 has no labels now: env=prod no longer selects it.
    let picked = |s: &mut Session| -> Vec<String> {
        s.evaluate(&at()).placements[0]
            .picked
            .iter()
            .map(|p| p.cluster.to_string())
            .collect()
    };
    assert!(!picked(&mut s).contains(&"member-007".to_string()));
    fleet.remove(labels7);
    check(&mut s, &fleet, &policy, "labels again in item 7");
    assert_eq!(errors(&mut s), [("metadata.labels.a".to_string(), Some(2))]);
    let meta4 = fleet[..item(&fleet, 4)].rfind("metadata:").unwrap_or(0) + "metadat".len();
    fleet.replace_range(meta4..meta4 + 1, "x");
    check(&mut s, &fleet, &policy, "metadatx in item 4");
    fleet.replace_range(meta4..meta4 + 1, "a");
    check(&mut s, &fleet, &policy, "metadata again in item 4");
    assert_eq!(errors(&mut s), [("metadata.labels.a".to_string(), Some(2))]);
}

/// Typing `[` or `{` after the closing brace of a `-o json` list makes the text JSON values
/// one after another: reading it whole reports the second one, which does not read, at its
/// line (the session had taken the text for the same list and said nothing; found by the
/// random-edit test above). Mended, the list is read again without errors.
#[test]
fn a_bracket_typed_after_a_json_list_is_read_as_a_whole_read_reads_it() {
    let mut fleet = kubectl_json_fleet(6);
    let mut s = Session::new();
    check(&mut s, &fleet, POLICY, "first read");
    let lines = fleet.lines().count() as u32;
    for typed in ["[", "{"] {
        let end = fleet.trim_end().len();
        fleet.insert_str(end, typed);
        check(&mut s, &fleet, POLICY, typed);
        let errors: Vec<(usize, u32, &str)> = s
            .input()
            .diagnostics
            .iter()
            .map(|d| (d.document, d.line, d.message.as_str()))
            .collect();
        assert_eq!(errors.len(), 1, "{typed}: {errors:?}");
        assert_eq!(
            (errors[0].0, errors[0].1),
            (2, lines),
            "{typed}: {errors:?}"
        );
        assert!(
            errors[0]
                .2
                .starts_with("invalid JSON: this value does not read"),
            "{typed}: {errors:?}"
        );
        fleet.replace_range(end..end + typed.len(), "");
        check(&mut s, &fleet, POLICY, &format!("{typed} taken out"));
        assert!(s.input().diagnostics.is_empty(), "{typed} taken out");
    }
}
