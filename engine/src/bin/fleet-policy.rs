//! `fleet-policy`: the engine on the command line, for CI pipelines.
//!
//! Exit codes: 0 result without input errors, 1 input errors (printed on stderr with
//! file:line:column), 2 usage errors. A closed output pipe (`… | head -1`) ends quietly.

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use fleet_policy::report::{options_from_value, to_json, to_yaml, EvaluateOptions};
use fleet_policy::text::Escaped;
use fleet_policy::{disruption, placement, rollout, Diagnostic, Input, Source};
use serde::Serialize;
use std::io::Write;
use std::process::ExitCode;

// Reading a large dump makes over a million small allocations: see the dependency's comment.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
    /// Evaluation instant: RFC 3339, or `snapshot` for the instant the input was captured (its
    /// newest heartbeat, condition or observation time). Default: the first file's
    /// `# at: <RFC 3339>` comment line (as the playground reads the examples), else now.
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
        /// Timeline horizon, a Go duration such as 168h or 36h30m; default 168h (7 days).
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
            eprintln!("{}", Escaped(&e));
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
    let old = fleet_policy::sources::read_paths(&a.old)?;
    let new = fleet_policy::sources::read_paths(&a.against)?;
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

/// The keys `--set` takes for one engine's options (`at` has its own flag).
fn options_keys<T: serde::de::DeserializeOwned>() -> Vec<&'static str> {
    fleet_policy::report::option_keys::<T>()
        .iter()
        .copied()
        .filter(|k| *k != "at")
        .collect()
}

/// Every engine's `--set` keys.
fn all_keys() -> Vec<&'static str> {
    let mut k = fleet_policy::report::accepted_keys();
    k.retain(|k| *k != "at");
    k
}

/// The first `# at: <instant>` line among the leading comment lines of the sources.
fn pinned_at(sources: &[Source]) -> Option<(String, String)> {
    sources.iter().find_map(|s| {
        s.text
            .lines()
            .take_while(|l| l.starts_with('#'))
            .find_map(|l| l.strip_prefix("# at:"))
            .map(|at| (s.name.clone(), at.trim().to_string()))
    })
}

/// The input and the engine options of a command: the files read once, `--at` settled
/// (`snapshot` is the input's own instant), `--set` and the command's flags.
fn prepare(
    common: &Common,
    extra: &[(&str, Option<&String>)],
) -> Result<(&'static Input, SetOptions), String> {
    let (input, sources) = fleet_policy::sources::read_files(&common.files)?;
    // The process ends right after the command: freeing the tree (millions of nodes for a
    // large dump, a tenth of the whole run) would only cost time.
    let input: &'static Input = Box::leak(Box::new(input));
    // An example's `# at:` line pins its instant, in the CLI as in the playground.
    let pinned = common.at.is_none().then(|| pinned_at(&sources)).flatten();
    if let Some((file, at)) = &pinned {
        eprintln!(
            "note: evaluating at {}, the `# at:` line of {} (--at overrides it)",
            Escaped(at),
            Escaped(file)
        );
    }
    let at_arg = common.at.clone().or(pinned.map(|(_, at)| at));
    let parsed = at_arg
        .as_deref()
        .map(|a| fleet_policy::testing::parse_at(a).map_err(|e| format!("--at {a}: {e}")))
        .transpose()?;
    let at = match parsed {
        Some(Some(t)) => t,
        Some(None) => match input.snapshot() {
            Some(t) => t,
            None => {
                eprintln!("note: --at snapshot: the input carries no times; evaluating at now");
                chrono::Utc::now()
            }
        },
        None => chrono::Utc::now(),
    };
    let mut map = serde_json::Map::new();
    map.insert("at".into(), serde_json::Value::String(at.to_rfc3339()));
    for (k, v) in extra {
        if let Some(v) = v {
            map.insert((*k).into(), serde_json::Value::String((*v).clone()));
        }
    }
    let mut as_written = serde_json::Map::new();
    for kv in &common.set {
        let (k, v) = kv.split_once('=').ok_or_else(|| {
            format!(
                "--set {kv}: expected KEY=VALUE; keys: {}",
                fleet_policy::report::accepted_keys().join(", ")
            )
        })?;
        let value = serde_json::from_str(v).unwrap_or_else(|_| serde_json::Value::String(v.into()));
        as_written.insert(k.into(), serde_json::Value::String(v.into()));
        map.insert(k.into(), value);
    }
    Ok((
        input,
        SetOptions {
            typed: serde_json::Value::Object(map),
            as_written,
        },
    ))
}

/// A command's options: `at`, the command's flags and `--set`, whose values read as JSON
/// (`horizon=36h` is a string, `x=3` a number) and are also kept as written.
struct SetOptions {
    typed: serde_json::Value,
    as_written: serde_json::Map<String, serde_json::Value>,
}

impl SetOptions {
    /// The options as `decode` reads them; where it refuses them, a second try with every
    /// `--set` value as the text written, so that a string option given what reads as a
    /// number (`karpenterVersion=1.10`) is that text, as the JS API's string would be.
    fn decode<T>(
        &self,
        decode: impl Fn(&serde_json::Value) -> Result<T, String>,
    ) -> Result<T, String> {
        let first = decode(&self.typed);
        if first.is_ok() || self.as_written.is_empty() {
            return first;
        }
        let mut text = self.typed.clone();
        if let serde_json::Value::Object(map) = &mut text {
            map.extend(self.as_written.clone());
        }
        decode(&text).or(first)
    }
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
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        // A reader that has seen enough (`| head`) closed the pipe: nothing is wrong.
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            return ExitCode::SUCCESS;
        }
        let _ = writeln!(
            std::io::stderr(),
            "fleet-policy: cannot write the result: {e}"
        );
        return ExitCode::from(2);
    }
    let mut err = std::io::BufWriter::new(std::io::stderr().lock());
    for n in notices {
        let _ = writeln!(err, "note: {}", Escaped(&n.message));
    }
    // The engine lists at most 1,000 of each and counts the rest in a last entry.
    for d in warnings.iter().chain(errors) {
        let _ = writeln!(err, "{d}");
    }
    let _ = err.flush();
    // A bad option value (`--set horizon=7d`) is a usage error, as a malformed `--horizon` is.
    let usage = errors.iter().any(Diagnostic::is_of_options);
    match (errors.is_empty(), usage) {
        (true, _) => ExitCode::SUCCESS,
        (false, true) => ExitCode::from(2),
        (false, false) => ExitCode::from(1),
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
            pass: r.disruption_pass.clone().unwrap_or_default(),
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
            let (input, o) = prepare(&c, &[])?;
            let opts: placement::PlaceOptions = o.decode(options_from_value)?;
            let r = fleet_policy::place_input(input, &opts);
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
            if let Some(h) = &horizon {
                fleet_policy::input::duration::GoDuration::parse(h).map_err(|e| {
                    format!(
                        "--horizon {h}: {e}; a Go duration such as 168h, 36h30m or 90m is expected"
                    )
                })?;
            }
            let (input, o) = prepare(&c, &[("horizon", horizon.as_ref())])?;
            let opts: disruption::BudgetOptions = o.decode(options_from_value)?;
            let r = fleet_policy::budgets_input(input, &opts);
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
            let (input, o) = prepare(&c, &[])?;
            let opts: rollout::RolloutOptions = o.decode(options_from_value)?;
            let r = fleet_policy::rollout_input(input, &opts);
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
            let (input, o) = prepare(&c, &[])?;
            let opts = o.decode(EvaluateOptions::from_value)?;
            let r = fleet_policy::evaluate_input(input, &opts);
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
            let (input, o) = prepare(&c, &[])?;
            let opts = o.decode(EvaluateOptions::from_value)?;
            let r = fleet_policy::validate_input(input, &opts);
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
    // `--set` keys come from the engine's option types, so the help cannot drift from them.
    let keys = |keys: Vec<&str>| {
        format!(
            "Engine option KEY=VALUE (VALUE as JSON, else a string); repeatable. Keys: {}",
            keys.join(", ")
        )
    };
    let mut cmd = Cli::command();
    for (name, accepted) in [
        ("place", options_keys::<placement::PlaceOptions>()),
        ("budgets", options_keys::<disruption::BudgetOptions>()),
        ("rollout", options_keys::<rollout::RolloutOptions>()),
        ("evaluate", all_keys()),
        ("validate", all_keys()),
    ] {
        let help = keys(accepted);
        cmd = cmd.mut_subcommand(name, |c| c.mut_arg("set", |a| a.help(help)));
    }
    let cli = match Cli::from_arg_matches(&cmd.get_matches()) {
        Ok(c) => c,
        Err(e) => e.exit(),
    };
    match run(cli) {
        Ok(code) => code,
        Err(msg) => {
            let _ = writeln!(std::io::stderr(), "fleet-policy: {}", Escaped(&msg));
            ExitCode::from(2)
        }
    }
}
