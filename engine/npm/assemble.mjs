// Assembles the npm package folder from wasm-bindgen's output, the optimised .wasm and the
// sources kept in engine/npm/. Usage: node engine/npm/assemble.mjs BINDGEN_DIR TYPES_D_TS OUT_DIR
// (OUT_DIR already holds fleet_policy_bg.wasm, written by wasm-opt).
import { readFileSync, writeFileSync, copyFileSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const [bindgen, typesFile, out] = process.argv.slice(2);
if (!bindgen || !typesFile || !out) {
  console.error('usage: node engine/npm/assemble.mjs BINDGEN_DIR TYPES_D_TS OUT_DIR');
  process.exit(2);
}

// The package version is the workspace's (Cargo.toml [workspace.package] version).
const cargo = readFileSync(join(root, 'Cargo.toml'), 'utf8');
const version = /\[workspace\.package\][^[]*?\nversion\s*=\s*"([^"]+)"/.exec(cargo)?.[1];
if (!version) {
  console.error('assemble: no version in Cargo.toml [workspace.package]');
  process.exit(1);
}

const pkg = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8'));
pkg.version = version;
writeFileSync(join(out, 'package.json'), JSON.stringify(pkg, null, 2) + '\n');

// wasm-bindgen's glue keeps one instance for good; after a trap that instance may be broken
// (its stack or heap left mid-operation), so the wrapper replaces it with a fresh one from the
// same compiled module. The glue's module-level state is reset by a function appended to it.
let glue = readFileSync(join(bindgen, 'fleet_policy.js'), 'utf8');
const caches = [...glue.matchAll(/^let (cached\w+Memory\d*) = null;$/gm)].map((m) => m[1]);
if (!/^let wasmModule, wasmInstance, wasm;$/m.test(glue) || !/^function initSync\(module\)/m.test(glue)) {
  console.error('assemble: wasm-bindgen glue without the expected module state; update the reinstantiation hook');
  process.exit(1);
}
glue += `
/** Replaces the instance with a fresh one of the same module (after a trap). */
export function __reinstantiate() {
  const module = wasmModule;
  wasm = undefined;
  wasmInstance = undefined;
${caches.map((c) => `  ${c} = null;`).join('\n')}
  return initSync({ module });
}
`;
writeFileSync(join(out, 'fleet_policy.js'), glue);
for (const f of ['index.js', 'node.js', 'README.md']) copyFileSync(join(here, f), join(out, f));
const license = join(root, 'LICENSE');
if (existsSync(license)) copyFileSync(license, join(out, 'LICENSE'));

// The .wasm again as base64 in an ES module, for `init()` without an argument: bundlers that do
// not treat `new URL(…, import.meta.url)` as an asset (esbuild) then need no configuration.
const wasm = readFileSync(join(out, 'fleet_policy_bg.wasm'));
writeFileSync(join(out, 'fleet_policy_wasm.js'),
  '// The engine\'s .wasm as base64 (generated; used by init() without an argument).\n' +
  `export default ${JSON.stringify(wasm.toString('base64'))};\n`);

const dts = readFileSync(join(here, 'index.d.ts.in'), 'utf8') + readFileSync(typesFile, 'utf8');
writeFileSync(join(out, 'index.d.ts'), dts);

for (const f of pkg.files) {
  if (!existsSync(join(out, f))) {
    console.error(`assemble: ${f} is listed in package.json "files" but missing`);
    process.exit(1);
  }
}
console.log(`[package] assembled fleet-policy ${version} in ${out}`);
