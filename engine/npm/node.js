// fleet-policy — the Node.js entry (Node ≥ 20, ESM). Reads the .wasm from disk and
// instantiates it synchronously at import, so every function can be called right away;
// `init()` is kept (it resolves immediately) so code written for browsers runs unchanged.
import { readFileSync } from 'node:fs';
import { initSync } from './index.js';

initSync(readFileSync(new URL('./fleet_policy_bg.wasm', import.meta.url)));

export { init, init as default, initSync, isInitialized, place, budgets, rollout, evaluate, validate, version } from './index.js';
