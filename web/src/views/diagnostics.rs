//! The problem list: every engine error and warning with its place; a click (or Enter) jumps
//! to it in the editor it came from.

use fleet_policy::Diagnostic;
use std::rc::Rc;
use yew::prelude::*;

/// Props of [`Problems`].
#[derive(Properties, PartialEq)]
pub struct ProblemsProps {
    /// Errors.
    pub errors: Rc<Vec<Diagnostic>>,
    /// Warnings.
    pub warnings: Rc<Vec<Diagnostic>>,
    /// Jump to (source, line, column).
    pub on_jump: Callback<(String, u32, u32)>,
}

/// Problems listed before "show all" (a large fleet can have a warning per cluster).
const FIRST_PROBLEMS: usize = 50;

/// The problem list.
#[function_component(Problems)]
pub fn problems(props: &ProblemsProps) -> Html {
    let (ne, nw) = (props.errors.len(), props.warnings.len());
    let show_all = use_state(|| false);
    let limit = if *show_all {
        usize::MAX
    } else {
        FIRST_PROBLEMS
    };
    let row = |d: &Diagnostic, class: &'static str| {
        let location = format!("{}:{}:{}", d.source, d.line, d.column);
        let what = match (&d.kind, &d.name) {
            (Some(k), Some(n)) => format!("document {} ({k} {n})", d.document),
            (Some(k), None) => format!("document {} ({k})", d.document),
            _ => format!("document {}", d.document),
        };
        let path = if d.path.is_empty() {
            String::new()
        } else {
            format!(", {}", d.path)
        };
        let onclick = {
            let jump = props.on_jump.clone();
            let target = (d.source.clone(), d.line, d.column);
            Callback::from(move |_| jump.emit(target.clone()))
        };
        html! {
            <li class={class}>
                <button type="button" class="problem" {onclick}
                    aria-label={format!("{class} at {location}: {}; go to it", d.message)}>
                    <span class="location">{ location }</span>
                    <span class="where">{ what }{ path }</span>
                    <span class="message">{ d.message.clone() }</span>
                </button>
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
            if ne + nw > 0 {
                <ul>
                    { for props.errors.iter().map(|d| row(d, "error"))
                        .chain(props.warnings.iter().map(|d| row(d, "warning"))).take(limit) }
                </ul>
                if ne + nw > limit {
                    <button type="button" class="show-all" onclick={ let s = show_all.clone(); Callback::from(move |_| s.set(true)) }>
                        { format!("Show all {} problems", ne + nw) }
                    </button>
                }
            }
        </section>
    }
}
