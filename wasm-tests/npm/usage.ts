// Compiled by `tsc --noEmit --strict` against the installed package (types.test.mjs): every
// function and the result and option types a user touches. Misuse must NOT compile.
import init, {
  initSync, isInitialized, place, budgets, rollout, evaluate, validate, version,
  type PlacementReport, type PlacementResult, type Picked, type Filtered, type Diagnostic,
  type BudgetReport, type RolloutReport, type EvaluateReport, type ValidateReport,
  type ApiOptions, type PlaceOptions, type BudgetOptions, type EvaluateApiOptions,
} from 'fleet-policy';

export async function main(yaml: string): Promise<string[]> {
  await init();
  await init(new URL('https://example.invalid/fleet_policy_bg.wasm'));
  initSync(new Uint8Array(8));
  const loaded: boolean = isInitialized();
  const v: string = version();

  const p: PlacementReport = place(yaml, { at: new Date(), source: 'fleet.yaml' });
  const first: PlacementResult | undefined = p.placements[0];
  const names: string[] = first ? first.picked.map((c: Picked) => `${c.cluster}:${c.affinityScore + c.topologySpreadScore}`) : [];
  const reasons: string[] = first ? first.filtered.map((f: Filtered) => `${f.plugin} ${f.reason} ${f.explanation.type}`) : [];
  const where = (d: Diagnostic): string => `${d.source}:${d.document}:${d.line}:${d.column} ${d.path} ${d.severity} ${d.message}`;

  const po: ApiOptions<PlaceOptions> = { at: '2026-01-01T00:00:00Z' };
  const bo: ApiOptions<BudgetOptions> = { at: new Date(), horizon: '24h' };
  const eo: EvaluateApiOptions = { ...po, horizon: '168h' };
  const b: BudgetReport = budgets(yaml, bo);
  const r: RolloutReport = rollout(yaml);
  const e: EvaluateReport = evaluate(yaml, eo);
  const ok: ValidateReport = validate(yaml);
  const flag: boolean = ok.valid && loaded;

  // @ts-expect-error yaml must be a string
  place(42);
  // @ts-expect-error options.at is a string or a Date
  place(yaml, { at: 5 });
  // @ts-expect-error the result has no such field
  p.picked;
  // @ts-expect-error severity is "error" | "warning"
  const s: 'fatal' = p.errors[0]!.severity;

  return [v, ...names, ...reasons, ...p.errors.map(where), String(b.nodePools.length), String(r.rollouts.length),
    String(e.placements.length), String(flag), String(s)];
}
