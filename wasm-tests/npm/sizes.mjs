// Prints the npm package's sizes: the tarball, and the .wasm raw and gzipped (level 9).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const tgz = readdirSync(root).find((f) => /^fleet-policy-.*\.tgz$/.test(f));
const wasm = readFileSync(join(root, 'target', 'npm-package', 'fleet_policy_bg.wasm'));
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
console.log(`[package] ${tgz}: ${kb(statSync(join(root, tgz)).size)}; ` +
  `fleet_policy_bg.wasm ${kb(wasm.length)} raw, ${kb(gzipSync(wasm, { level: 9 }).length)} gzipped`);
