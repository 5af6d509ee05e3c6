//! `fleet-policy`: the engine on the command line, for CI pipelines.
//!
//! Exit codes: 0 result without input errors, 1 input errors (printed on stderr with
//! file:line:column), 2 usage errors.

use clap::{Parser, Subcommand, ValueEnum};
use fleet_policy::report::{options_from_value, to_json, to_yaml, EvaluateOptions};
use fleet_policy::{disruption, placement, rollout, Diagnostic, Input, Source};
use serde::Serialize;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "fleet-policy",
    version,
    about = "Evaluate KubeFleet placements, Karpenter disruption budgets and fleet rollouts offline"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Json,
    Yaml,
    Table,
}

#[derive(clap::Args)]
struct Common {
    /// YAML files (multi-document and `kind: List` accepted); `-` reads standard input.
    #[arg(required = true)]
    files: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "json")]
    format: Format,
    /// Evaluation instant (RFC 3339); default: now.
    #[arg(long)]
    at: Option<String>,
    /// Engine option KEY=VALUE (VALUE as JSON, else a string); repeatable.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
}

#[derive(Subcommand)]
enum Command {
    /// Which clusters each ClusterResourcePlacement picks, with scores and reasons.
    Place(Common),
    /// Allowed disruptions, windows, timeline and candidates of each NodePool.
    Budgets {
        #[command(flatten)]
        common: Common,
        /// Timeline horizon (Go duration, e.g. 168h); default 7 days.
        #[arg(long)]
        horizon: Option<String>,
    },
    /// Order, waves, timeline and states of each rollout.
    Rollout(Common),
    /// Run every engine that applies to the input.
    Evaluate(Common),
    /// Check the input without printing results.
    Validate(Common),
    /// Check the expectations of `kind: Test` documents (files, or folders searched for them).
    /// Exit 0 all hold, 1 any fails, 2 usage or input errors.
    Test(TestArgs),
    /// What changed in the decisions from OLD inputs to NEW ones (files or folders).
    /// Exit 0 no change, 1 decisions changed, 2 errors.
    Diff(DiffArgs),
}

#[derive(Clone, Copy, ValueEnum)]
enum TestFormat {
    Summary,
    Junit,
}

#[derive(clap::Args)]
struct TestArgs {
    /// Test files, or folders searched for `kind: Test` documents.
    #[arg(required = true)]
    paths: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "summary")]
    format: TestFormat,
}

#[derive(Clone, Copy, ValueEnum)]
enum DiffFormat {
    Table,
    Json,
    Markdown,
}

#[derive(clap::Args)]
struct DiffArgs {
    /// The old inputs (files or folders).
    #[arg(required = true)]
    old: Vec<String>,
    /// The new inputs (files or folders).
    #[arg(long, required = true, num_args = 1..)]
    against: Vec<String>,
    /// Evaluation instant for both (RFC 3339, or `snapshot`: the new input's); default: now.
    #[arg(long)]
    at: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: DiffFormat,
}

fn run_test(a: TestArgs) -> Result<ExitCode, String> {
    let fail = |errors: Vec<String>| {
        for e in errors {
            eprintln!("{e}");
        }
        Ok(ExitCode::from(2))
    };
    let tests = match fleet_policy::testing::load(&a.paths) {
        Ok(t) => t,
        Err(e) => return fail(e),
    };
    let mut outcomes = Vec::new();
    for t in &tests {
        match fleet_policy::testing::run(t) {
            Ok(o) => outcomes.extend(o),
            Err(e) => return fail(e),
        }
    }
    print!(
        "{}",
        match a.format {
            TestFormat::Summary => fleet_policy::testing::render_summary(&outcomes),
            TestFormat::Junit => fleet_policy::testing::render_junit(&outcomes),
        }
    );
    let failed = outcomes.iter().any(|o| !o.failures.is_empty());
    Ok(ExitCode::from(u8::from(failed)))
}

fn run_diff(a: DiffArgs) -> Result<ExitCode, String> {
    let old = Input::parse(&fleet_policy::sources::read_paths(&a.old)?);
    let new = Input::parse(&fleet_policy::sources::read_paths(&a.against)?);
    let at = match a.at.as_deref().map(fleet_policy::testing::parse_at) {
        None => chrono::Utc::now(),
        Some(Ok(Some(t))) => t,
        Some(Ok(None)) => new
            .snapshot()
            .ok_or("--at snapshot: the new inputs carry no status timestamp")?,
        Some(Err(e)) => return Err(format!("--at: {e}")),
    };
    let opts = EvaluateOptions::at(at);
    let (o, n) = (
        fleet_policy::evaluate_input(&old, &opts),
        fleet_policy::evaluate_input(&new, &opts),
    );
    if !o.errors.is_empty() || !n.errors.is_empty() {
        for e in o.errors.iter().chain(&n.errors) {
            eprintln!("{e}");
        }
        return Ok(ExitCode::from(2));
    }
    let changes = fleet_policy::diff::diff(&o, &n);
    print!(
        "{}",
        match a.format {
            DiffFormat::Table => fleet_policy::diff::render_table(&changes),
            DiffFormat::Json => fleet_policy::diff::render_json(&changes),
            DiffFormat::Markdown => fleet_policy::diff::render_markdown(&changes),
        }
    );
    Ok(ExitCode::from(u8::from(!changes.is_empty())))
}

fn read_sources(files: &[String]) -> Result<Vec<Source>, String> {
    files
        .iter()
        .map(|f| {
            let text = if f == "-" {
                std::io::read_to_string(std::io::stdin())
            } else {
                std::fs::read_to_string(f)
            };
            text.map(|t| Source::new(f.clone(), t))
                .map_err(|e| format!("cannot read {f}: {e}"))
        })
        .collect()
}

fn options(
    common: &Common,
    extra: &[(&str, Option<&String>)],
) -> Result<serde_json::Value, String> {
    let at = match &common.at {
        Some(a) => chrono::DateTime::parse_from_rfc3339(a)
            .map_err(|e| format!("--at {a}: not an RFC 3339 time: {e}"))?
            .to_utc(),
        None => chrono::Utc::now(),
    };
    let mut map = serde_json::Map::new();
    map.insert("at".into(), serde_json::Value::String(at.to_rfc3339()));
    for (k, v) in extra {
        if let Some(v) = v {
            map.insert((*k).into(), serde_json::Value::String((*v).clone()));
        }
    }
    for kv in &common.set {
        let (k, v) = kv
            .split_once('=')
            .ok_or_else(|| format!("--set {kv}: expected KEY=VALUE"))?;
        let value = serde_json::from_str(v).unwrap_or_else(|_| serde_json::Value::String(v.into()));
        map.insert(k.into(), value);
    }
    Ok(serde_json::Value::Object(map))
}

fn emit<T: Serialize>(
    report: &T,
    format: Format,
    table: impl Fn(&T) -> String,
    errors: &[Diagnostic],
    warnings: &[Diagnostic],
    notices: &[fleet_policy::notice::Notice],
) -> ExitCode {
    let mut text = match format {
        Format::Json => to_json(report) + "\n",
        Format::Yaml => to_yaml(report),
        Format::Table => table(report),
    };
    // Diagnostics follow on stderr: the result must end its own line.
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    print!("{text}");
    for n in notices {
        eprintln!("note: {}", n.message);
    }
    for w in warnings {
        eprintln!("{w}");
    }
    for e in errors {
        eprintln!("{e}");
    }
    if errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// `evaluate --format table`: each engine's own table, for the engines that applied, drawn
/// from the one evaluated report (diagnostics go to stderr, so the tables get none).
fn evaluate_table(r: &fleet_policy::EvaluateReport) -> String {
    let mut out = String::new();
    if !r.placements.is_empty() {
        out.push_str(&placement::table::render(&placement::PlacementReport {
            placements: r.placements.clone(),
            ..Default::default()
        }));
    }
    if let Some(version) = &r.karpenter_version {
        out.push_str(&disruption::table::render(&disruption::BudgetReport {
            karpenter_version: version.clone(),
            at: None,
            horizon_end: r.horizon_end,
            node_pools: r.node_pools.clone(),
            ..Default::default()
        }));
    }
    if !r.rollouts.is_empty() {
        out.push_str(&rollout::table::render(&rollout::RolloutReport {
            rollouts: r.rollouts.clone(),
            ..Default::default()
        }));
    }
    if out.is_empty() {
        out.push_str("nothing to evaluate: no placement, NodePool or rollout in the input\n");
    }
    out
}

fn run(cli: Cli) -> Result<ExitCode, String> {
    Ok(match cli.command {
        Command::Place(c) => {
            let opts: placement::PlaceOptions = options_from_value(&options(&c, &[])?)?;
            let r = fleet_policy::place(&read_sources(&c.files)?, &opts);
            emit(
                &r,
                c.format,
                placement::table::render,
                &r.errors,
                &r.warnings,
                &r.notices,
            )
        }
        Command::Budgets { common: c, horizon } => {
            let opts: disruption::BudgetOptions =
                options_from_value(&options(&c, &[("horizon", horizon.as_ref())])?)?;
            let r = fleet_policy::budgets(&read_sources(&c.files)?, &opts);
            emit(
                &r,
                c.format,
                disruption::table::render,
                &r.errors,
                &r.warnings,
                &r.notices,
            )
        }
        Command::Rollout(c) => {
            let opts: rollout::RolloutOptions = options_from_value(&options(&c, &[])?)?;
            let r = fleet_policy::rollout(&read_sources(&c.files)?, &opts);
            emit(
                &r,
                c.format,
                rollout::table::render,
                &r.errors,
                &r.warnings,
                &r.notices,
            )
        }
        Command::Evaluate(c) => {
            let opts = EvaluateOptions::from_value(&options(&c, &[])?)?;
            let input = Input::parse(&read_sources(&c.files)?);
            let r = fleet_policy::evaluate_input(&input, &opts);
            emit(
                &r,
                c.format,
                evaluate_table,
                &r.errors,
                &r.warnings,
                &r.notices,
            )
        }
        Command::Validate(c) => {
            let opts = EvaluateOptions::from_value(&options(&c, &[])?)?;
            let r = fleet_policy::validate(&read_sources(&c.files)?, &opts);
            let summary = |r: &fleet_policy::ValidateReport| {
                format!(
                    "{} error(s), {} warning(s)\n",
                    r.errors.len(),
                    r.warnings.len()
                )
            };
            emit(&r, c.format, summary, &r.errors, &r.warnings, &r.notices)
        }
        Command::Test(a) => run_test(a)?,
        Command::Diff(a) => run_diff(a)?,
    })
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(msg) => {
            eprintln!("fleet-policy: {msg}");
            ExitCode::from(2)
        }
    }
}
