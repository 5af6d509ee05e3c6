// Input speed of the npm package under Node on realistic dumps (not run by `make test`):
//   make bench-input
// reads the `kubectl get memberclusters -o yaml` / `-o json` dumps the native input benchmark
// writes (INPUT_DUMP, engine/benches/gen/dump.rs) and times `place()` on them: the first call
// in a fresh instance (this process), then warm calls. Native figures for the same files come
// from `fleet-policy place` (printed beside them by the make target).
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { installed } from './consumer.mjs';

const [dir, format, n = '10000'] = process.argv.slice(2);
const fleet = readFileSync(join(dir, `members-${n}.${format}`), 'utf8');
const policy = readFileSync(join(dir, 'placement.yaml'), 'utf8');
// Two sources as one text: the dump, then the placement as the next YAML document (a JSON
// dump is one document: the placement follows after a `---` line).
const text = `${fleet}\n---\n${policy}`;
// The concatenation is a rope in V8, made flat by whatever reads it first; a file read as one
// string is flat. Measured: without this the first call pays 15-20 ms more for it.
const mb = Buffer.byteLength(text) / 1e6;
const fp = await import(pathToFileURL(join(installed(), 'use.mjs')).href);
const opts = { at: 'snapshot' };

const time = () => {
  const t0 = performance.now();
  const r = fp.place(text, opts);
  const ms = performance.now() - t0;
  if (r.errors.length) throw new Error(`errors: ${JSON.stringify(r.errors.slice(0, 3))}`);
  if (r.placements[0]?.picked?.length !== 50) throw new Error('expected 50 picks');
  return ms;
};
const first = time();
const warm = [time(), time(), time()].sort((a, b) => a - b)[1];
// Calls with the event loop idle between them (a server between requests, a page between
// edits): the wrapper frees each call's input then, instead of at the start of the next call.
const idle = () => new Promise((resolve) => setTimeout(resolve, 50));
const afterIdle = [];
for (let i = 0; i < 3; i++) {
  await idle();
  afterIdle.push(time());
}
const warmIdle = afterIdle.sort((a, b) => a - b)[1];
console.log(`wasm place ${format} ${Number(n).toLocaleString('en')} clusters (${mb.toFixed(1)} MB): first call ${(first / 1000).toFixed(2)} s, warm ${(warm / 1000).toFixed(2)} s (${(mb / (warm / 1000)).toFixed(0)} MB/s), after an idle turn ${(warmIdle / 1000).toFixed(2)} s, first/warm ${(first / warm).toFixed(2)}×, peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
