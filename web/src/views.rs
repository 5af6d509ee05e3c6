//! Views: each renders one engine result type; none recomputes a decision.

use fleet_policy::placement::PlacementResult;
use fleet_policy::Diagnostic;
use yew::prelude::*;

/// Props of [`DiagnosticsPanel`].
#[derive(Properties, PartialEq)]
pub struct DiagnosticsProps {
    /// Errors.
    pub errors: Vec<Diagnostic>,
    /// Warnings.
    pub warnings: Vec<Diagnostic>,
}

/// Errors and warnings with their line:column.
#[function_component(DiagnosticsPanel)]
pub fn diagnostics_panel(props: &DiagnosticsProps) -> Html {
    if props.errors.is_empty() && props.warnings.is_empty() {
        return html! {};
    }
    let row = |d: &Diagnostic, class: &'static str| {
        let location = format!("{}:{}", d.line, d.column);
        let what = match (&d.kind, &d.name) {
            (Some(k), Some(n)) => format!("document {} ({k} {n})", d.document),
            (Some(k), None) => format!("document {} ({k})", d.document),
            _ => format!("document {}", d.document),
        };
        html! {
            <li class={class}>
                <span class="location">{ location }</span>
                <span class="where">{ what }{ if d.path.is_empty() { String::new() } else { format!(", {}", d.path) } }</span>
                <span class="message">{ d.message.clone() }</span>
            </li>
        }
    };
    html! {
        <section class="diagnostics" id="diagnostics" aria-label="Problems">
            <h2>{ format!("Problems: {} error(s), {} warning(s)", props.errors.len(), props.warnings.len()) }</h2>
            <ul>
                { for props.errors.iter().map(|d| row(d, "error")) }
                { for props.warnings.iter().map(|d| row(d, "warning")) }
            </ul>
        </section>
    }
}

/// Props of [`PlacementView`].
#[derive(Properties, PartialEq)]
pub struct PlacementProps {
    /// The placement result to show.
    pub placement: PlacementResult,
}

/// One placement: picked clusters first (in pick order), then filtered ones with the reason.
#[function_component(PlacementView)]
pub fn placement_view(props: &PlacementProps) -> Html {
    let p = &props.placement;
    html! {
        <section class="placement" aria-label={format!("Placement {}", p.name)}>
            <h2>{ format!("Placement {}", p.name) }</h2>
            <p class={classes!("condition", if p.condition.status == "True" { "ok" } else { "unfulfilled" })}>
                { p.condition.message.clone() }
            </p>
            <table class="clusters">
                <thead><tr><th scope="col">{ "Cluster" }</th><th scope="col">{ "Result" }</th><th scope="col">{ "Reason" }</th></tr></thead>
                <tbody>
                    { for p.picked.iter().map(|c| html! {
                        <tr class="picked"><td>{ c.cluster.clone() }</td><td>{ "picked" }</td><td></td></tr>
                    }) }
                    { for p.not_picked.iter().map(|c| html! {
                        <tr class="not-picked"><td>{ c.cluster.clone() }</td><td>{ "not picked" }</td><td>{ "does not score high enough" }</td></tr>
                    }) }
                    { for p.filtered.iter().map(|c| html! {
                        <tr class="filtered"><td>{ c.cluster.clone() }</td><td>{ "filtered" }</td><td>{ c.reason.clone() }</td></tr>
                    }) }
                </tbody>
            </table>
        </section>
    }
}
