// A temporary project that installs the packed tarball, as a user would (offline: a local
// .tgz without dependencies needs no registry). The npm tests import the package from here,
// so they see exactly what `npm pack` shipped, resolved through its `exports` map.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CONSUMER = join(ROOT, 'target', 'npm-consumer');
export const EXAMPLES = join(ROOT, 'static', 'examples');

export function tarball() {
  const tgz = readdirSync(ROOT).filter((f) => /^fleet-policy-.*\.tgz$/.test(f));
  if (tgz.length !== 1) throw new Error(`expected one fleet-policy-*.tgz at the repo root (run make package), found ${tgz.length}`);
  return join(ROOT, tgz[0]);
}

/** Recreates the consumer project and installs the tarball into it. */
export function install() {
  rmSync(CONSUMER, { recursive: true, force: true });
  mkdirSync(CONSUMER, { recursive: true });
  writeFileSync(join(CONSUMER, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }, null, 2));
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--loglevel=error', tarball()], { cwd: CONSUMER, stdio: 'inherit' });
  // The tests import the package through a module of the consumer, so the bare specifier is
  // resolved by Node from the consumer's node_modules with Node's own conditions.
  writeFileSync(join(CONSUMER, 'use.mjs'), "export * from 'fleet-policy';\nexport { default } from 'fleet-policy';\n");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  install();
  console.log(`[package] installed ${tarball().split('/').pop()} into ${CONSUMER}`);
}

export function installed() {
  if (!existsSync(join(CONSUMER, 'node_modules', 'fleet-policy', 'package.json'))) install();
  return CONSUMER;
}
