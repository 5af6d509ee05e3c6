// The size budget of the engine-only .wasm (SIZE.md), measured on the file the installed
// package ships: at most 320 KB gzipped (zlib level 9, KB = 1,024 bytes).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { installed } from './consumer.mjs';

const BUDGET_KB = 320;

// Without Rust's library source the build cannot rebuild std for size (`make package` prints
// a notice); that route is larger by design, so only the size-tuned routes are held to it.
const plain = process.env.PKG_ROUTE === 'plain';

test(`the package's .wasm is at most ${BUDGET_KB} KB gzipped`, { skip: plain && 'PKG_ROUTE=plain: std not rebuilt for size' }, () => {
  const wasm = readFileSync(join(installed(), 'node_modules', 'fleet-policy', 'fleet_policy_bg.wasm'));
  const gz = gzipSync(wasm, { level: 9 }).length / 1024;
  assert.ok(gz <= BUDGET_KB, `fleet_policy_bg.wasm is ${gz.toFixed(1)} KB gzipped, over the ${BUDGET_KB} KB budget`);
});
