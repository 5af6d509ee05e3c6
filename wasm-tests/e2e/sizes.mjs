// Prints the size of each file in dist/ that a browser downloads, raw and gzipped.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const dir = process.argv[2] ?? 'dist';
let raw = 0, gz = 0;
for (const name of readdirSync(dir).sort()) {
  if (!/\.(wasm|js|css|html)$/.test(name) || !statSync(join(dir, name)).isFile()) continue;
  const bytes = readFileSync(join(dir, name));
  const z = gzipSync(bytes, { level: 9 }).length;
  raw += bytes.length; gz += z;
  console.log(`[dist] ${name.padEnd(28)} ${(bytes.length / 1024).toFixed(1).padStart(8)} KiB  ${(z / 1024).toFixed(1).padStart(7)} KiB gzipped`);
}
console.log(`[dist] ${'total'.padEnd(28)} ${(raw / 1024).toFixed(1).padStart(8)} KiB  ${(gz / 1024).toFixed(1).padStart(7)} KiB gzipped`);
