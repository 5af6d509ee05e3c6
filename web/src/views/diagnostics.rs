//! The problem list: every engine error and warning with its place; a click (or Enter) jumps
//! to it in the editor it came from. Identical messages (one per cluster of a fleet, say) are
//! listed once, with every place they occur.

use super::Shared;
use fleet_policy::{Diagnostic, EvaluateReport};
use std::collections::BTreeMap;
use yew::prelude::*;

/// Props of [`Problems`].
#[derive(Properties, PartialEq)]
pub struct ProblemsProps {
    /// The report whose errors and warnings are listed.
    pub report: Shared<EvaluateReport>,
    /// Jump to (source, line, column).
    pub on_jump: Callback<(String, u32, u32)>,
}

/// Problems listed before "show all" (a large fleet can have a warning per cluster).
const FIRST_PROBLEMS: usize = 50;
/// Places listed under a grouped problem before "…".
const FIRST_PLACES: usize = 20;

/// One message and every diagnostic that says it, in report order.
struct Group<'a> {
    class: &'static str,
    all: Vec<&'a Diagnostic>,
}

/// Errors then warnings, each message once (in the order it first occurs).
fn groups(report: &EvaluateReport) -> Vec<Group<'_>> {
    let mut out: Vec<Group<'_>> = Vec::new();
    let mut index: BTreeMap<(&'static str, &str), usize> = BTreeMap::new();
    let all = (report.errors.iter().map(|d| (d, "error")))
        .chain(report.warnings.iter().map(|d| (d, "warning")));
    for (d, class) in all {
        match index.get(&(class, d.message.as_str())) {
            Some(&k) => out[k].all.push(d),
            None => {
                index.insert((class, d.message.as_str()), out.len());
                out.push(Group {
                    class,
                    all: vec![d],
                });
            }
        }
    }
    out
}

fn location(d: &Diagnostic) -> String {
    format!("{}:{}:{}", d.source, d.line, d.column)
}

fn what(d: &Diagnostic) -> String {
    let doc = match (&d.kind, &d.name) {
        (Some(k), Some(n)) => format!("document {} ({k} {n})", d.document),
        (Some(k), None) => format!("document {} ({k})", d.document),
        _ => format!("document {}", d.document),
    };
    if d.path.is_empty() {
        doc
    } else {
        format!("{doc}, {}", d.path)
    }
}

/// The problem list.
#[function_component(Problems)]
pub fn problems(props: &ProblemsProps) -> Html {
    let (ne, nw) = (props.report.errors.len(), props.report.warnings.len());
    let show_all = use_state(|| false);
    let limit = if *show_all {
        usize::MAX
    } else {
        FIRST_PROBLEMS
    };
    let jump = |d: &Diagnostic| {
        let jump = props.on_jump.clone();
        let target = (d.source.clone(), d.line, d.column);
        Callback::from(move |_| jump.emit(target.clone()))
    };
    let groups = groups(&props.report);
    let n = groups.len();
    let row = |g: &Group<'_>| {
        let (d, class) = (g.all[0], g.class);
        let loc = location(d);
        let more = g.all.len() - 1;
        html! {
            <li class={classes!(class, (more > 0).then_some("grouped"))}>
                <button type="button" class="problem" onclick={jump(d)}
                    aria-label={format!("{class} at {loc}: {}; go to it", d.message)}>
                    <span class="location">{ loc }</span>
                    <span class="where">{ what(d) }</span>
                    <span class="message">{ d.message.clone() }</span>
                </button>
                if more > 0 {
                    <details class="also">
                        <summary>{ format!("and {more} more place(s) with the same message") }</summary>
                        <ul>
                            { for g.all[1..].iter().take(FIRST_PLACES).map(|d| html! {
                                <li><button type="button" class="problem-place" onclick={jump(d)}>
                                    <span class="location">{ location(d) }</span>{ " " }<span class="where">{ what(d) }</span>
                                </button></li>
                            }) }
                            if more > FIRST_PLACES { <li class="muted">{ format!("… {} more", more - FIRST_PLACES) }</li> }
                        </ul>
                    </details>
                }
            </li>
        }
    };
    html! {
        <section class="diagnostics" id="diagnostics" aria-label="Problems">
            <h2>
                { "Problems " }
                <span class={classes!("count", (ne > 0).then_some("bad"))}>{ format!("{ne} error(s)") }</span>
                { ", " }
                <span class={classes!("count", (nw > 0).then_some("warn"))}>{ format!("{nw} warning(s)") }</span>
            </h2>
            if n > 0 {
                <ul>{ for groups.iter().take(limit).map(row) }</ul>
                if n > limit {
                    <button type="button" class="show-all" onclick={ let s = show_all.clone(); Callback::from(move |_| s.set(true)) }>
                        { format!("Show all {n} problems") }
                    </button>
                }
            }
        </section>
    }
}
