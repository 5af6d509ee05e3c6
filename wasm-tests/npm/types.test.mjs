// The package's TypeScript declarations: `tsc --noEmit --strict` on a usage file, and a drift
// check — real results of every API function on every example, written out as typed object
// literals, must compile against the declarations (TypeScript rejects a missing field, a field
// of another type and, for literals, any field the declarations do not have).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { installed, EXAMPLES, ROOT } from './consumer.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const consumer = installed();
const dir = join(consumer, 'ts');
mkdirSync(dir, { recursive: true });
const TSC = join(ROOT, 'node_modules', '.bin', 'tsc');
const AT = '2026-03-04T12:00:00Z';

function tsc(files) {
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      strict: true, noEmit: true, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext',
      lib: ['es2022', 'dom'], skipLibCheck: false, types: [], noUncheckedIndexedAccess: true,
    },
    files,
  }, null, 2));
  try {
    execFileSync(TSC, ['-p', join(dir, 'tsconfig.json')], { encoding: 'utf8', stdio: 'pipe' });
    return '';
  } catch (e) {
    return `${e.stdout}${e.stderr}`;
  }
}

test('tsc --noEmit --strict: the usage file compiles (misuse marked in it does not), and real results of every function on every example match the generated declarations', async () => {
  copyFileSync(join(here, 'usage.ts'), join(dir, 'usage.ts'));
  const fp = await import(pathToFileURL(join(consumer, 'use.mjs')).href);
  const inputs = readdirSync(EXAMPLES).filter((f) => f.endsWith('.yaml')).map((f) => [f, readFileSync(join(EXAMPLES, f), 'utf8')]);
  // Input errors too, so Diagnostic's optional fields are exercised.
  inputs.push(['broken.yaml', 'kind: List\napiVersion: v1\nitems:\n- apiVersion: cluster.kubernetes-fleet.io/v1\n  kind: MemberCluster\n  metadata: {name: 5, labels: [x]}\n- {kind: Nope}\n']);
  const calls = [['place', 'PlacementReport'], ['budgets', 'BudgetReport'], ['rollout', 'RolloutReport'], ['evaluate', 'EvaluateReport'], ['validate', 'ValidateReport']];
  let src = `import type { ${calls.map((c) => c[1]).join(', ')} } from 'fleet-policy';\n`;
  let n = 0;
  for (const [name, yaml] of inputs) {
    for (const [fn, type] of calls) {
      src += `// ${fn}(${name})\nexport const r${n++}: ${type} = ${JSON.stringify(fp[fn](yaml, { at: AT }), null, 1)};\n`;
    }
  }
  writeFileSync(join(dir, 'results.ts'), src);
  assert.ok(n >= 5 * 4);
  assert.equal(tsc(['usage.ts', 'results.ts']), '');
});
