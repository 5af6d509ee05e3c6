// fleet-policy — the browser and bundler entry (ESM).
//
// The engine is a WebAssembly module built by wasm-bindgen (`--target web`). Call `init()`
// (async; uses the embedded copy of the .wasm unless given its URL or bytes) or
// `initSync(bytesOrModule)` once, then the evaluation functions are synchronous.
// Node ≥ 20 gets `node.js` instead (through the package's `exports` map), which initialises
// synchronously at import.
import wbgInit, {
  initSync as wbgInitSync,
  place as wbgPlace,
  budgets as wbgBudgets,
  rollout as wbgRollout,
  evaluate as wbgEvaluate,
  validate as wbgValidate,
  version as wbgVersion,
  text_buffer as wbgTextBuffer,
  release as wbgRelease,
  __reinstantiate,
} from './fleet_policy.js';

let ready = false;
let pending = null;
// The live instance's exports: its linear memory, where the text is written.
let instance = null;

/**
 * Loads and instantiates the engine. Without an argument it uses the copy of the .wasm embedded
 * in `fleet_policy_wasm.js` (loaded by a dynamic import), so every bundler — esbuild included —
 * and every server works with no plugin, no asset rule and no MIME type. To stream-compile the
 * separate .wasm instead, pass its URL (the package exports it as `fleet-policy/wasm`), a
 * `Response`, the bytes or a compiled `WebAssembly.Module`. Safe to call more than once.
 */
export function init(input) {
  if (ready) return Promise.resolve();
  if (!pending) {
    const source = input === undefined ? embeddedWasm() : Promise.resolve(input);
    pending = source
      .then((module_or_path) => wbgInit({ module_or_path }))
      .then(
        (exports) => { instance = exports; ready = true; },
        (e) => { pending = null; throw e; },
      );
  }
  return pending;
}

async function embeddedWasm() {
  const { default: base64 } = await import('./fleet_policy_wasm.js');
  const bin = atob(base64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

export default init;

/**
 * Instantiates the engine synchronously from its bytes (ArrayBuffer / typed array) or a
 * compiled `WebAssembly.Module`. Browsers limit synchronous compilation of large modules on the
 * main thread; prefer `init()` there.
 */
export function initSync(module) {
  if (ready) return;
  if (module === undefined || module === null) {
    throw new TypeError('fleet-policy: initSync(module) needs the .wasm bytes or a WebAssembly.Module');
  }
  instance = wbgInitSync({ module });
  ready = true;
}

/** True once `init()` or `initSync()` has completed. */
export function isInitialized() {
  return ready;
}

function describe(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value).slice(0, 40)}`;
}

function checkReady(fn) {
  if (!ready) {
    throw new TypeError(`fleet-policy: ${fn}() was called before the engine was loaded; await init() (or call initSync()) first`);
  }
}

function checkYaml(fn, yaml) {
  if (typeof yaml !== 'string') {
    throw new TypeError(`fleet-policy: ${fn}(yaml, options?): yaml must be a string of YAML, got ${describe(yaml)}`);
  }
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

// Options are a plain object; `at` may be a Date or an RFC 3339 string (default: now).
// Each engine checks the types of its own switches; a mismatch is rethrown as a TypeError.
function normaliseOptions(fn, options) {
  // "Now" is read here, not in the engine: the evaluation time is always an explicit input.
  if (options === undefined || options === null) return { at: new Date().toISOString() };
  if (typeof options !== 'object' || Array.isArray(options) || options instanceof Date) {
    throw new TypeError(`fleet-policy: ${fn}(yaml, options?): options must be an object, got ${describe(options)}`);
  }
  const out = { ...options };
  if (out.at instanceof Date) {
    if (Number.isNaN(out.at.getTime())) {
      throw new TypeError(`fleet-policy: ${fn}(): options.at is an invalid Date`);
    }
    out.at = out.at.toISOString();
  } else if (out.at !== undefined && out.at !== null && typeof out.at !== 'string') {
    throw new TypeError(`fleet-policy: ${fn}(): options.at must be a Date or an RFC 3339 string, got ${describe(out.at)}`);
  }
  if (out.at === undefined || out.at === null) out.at = new Date().toISOString();
  // "snapshot": the input's own instant (its newest heartbeat or observation); the engine
  // falls back to now, passed here, when the input carries no times.
  if (out.at === 'snapshot') out.now = new Date().toISOString();
  else if (typeof out.at === 'string' && !RFC3339.test(out.at)) {
    throw new TypeError(`fleet-policy: ${fn}(): options.at must be an RFC 3339 time such as 2026-01-01T09:00:00Z or "snapshot", got ${JSON.stringify(out.at)}`);
  }
  if (out.source !== undefined && out.source !== null && typeof out.source !== 'string') {
    throw new TypeError(`fleet-policy: ${fn}(): options.source (the name of the input in diagnostics) must be a string, got ${describe(out.source)}`);
  }
  return out;
}

// Options go in and the result comes out as JSON text: the engine writes the CLI's JSON and
// the JS engine's native JSON.parse builds the plain objects, much faster for large results
// than building them one property at a time across the wasm boundary.
// The text goes in as UTF-8, encoded natively by TextEncoder straight into a buffer the engine
// lends in its linear memory: the glue would copy a string in one character at a time (about 5x
// slower for a 27 MB dump), and encoding to a JS buffer first costs a second copy.
const ENCODER = new TextEncoder();

// Writes `yaml` into the engine's text buffer; its length in bytes. A dump is ASCII (one byte per
// UTF-16 unit) as a rule; other text may take up to three bytes a unit, and is written again
// into a buffer of that size when the first did not hold it.
function writeText(yaml) {
  let size = yaml.length;
  for (;;) {
    const at = wbgTextBuffer(size);
    const { read, written } = ENCODER.encodeInto(yaml, new Uint8Array(instance.memory.buffer, at, size));
    if (read === yaml.length) return written;
    size = yaml.length * 3;
  }
}

function call(fn, impl, yaml, options) {
  checkYaml(fn, yaml);
  const opts = normaliseOptions(fn, options);
  checkReady(fn);
  let json;
  try {
    json = impl(writeText(yaml), JSON.stringify(opts));
  } catch (e) {
    throwTrap(fn, e);
    // The engine throws only for options it cannot decode; input errors are in the result.
    const message = e instanceof Error ? e.message : String(e);
    throw new TypeError(`fleet-policy: ${fn}(): ${message}`);
  }
  releaseWhenIdle();
  return JSON.parse(json);
}

// The engine keeps each call's input tree until it is told to free it, so that the caller
// does not wait for that: for a 10,000-cluster dump it is 30-35 ms in Node, 6-7% of
// the call. They are freed when the event loop is next idle, or by the next call before it reads
// if that comes first (back-to-back calls).
const whenIdle = globalThis.requestIdleCallback
  ? (f) => globalThis.requestIdleCallback(f)
  : (f) => {
      const timer = setTimeout(f, 0);
      // Node: a pending release does not keep the process alive.
      timer?.unref?.();
    };
let releaseDue = false;

function releaseWhenIdle() {
  if (releaseDue) return;
  releaseDue = true;
  whenIdle(() => {
    releaseDue = false;
    if (!ready) return;
    try {
      wbgRelease();
    } catch (e) {
      // A trap (a bug in the engine): a fresh instance, as after a call's trap.
      if (e instanceof WebAssembly.RuntimeError) {
        try {
          instance = __reinstantiate();
        } catch {
          ready = false;
        }
      }
    }
  });
}

// The engine is built with panics as immediate aborts: a bug in it surfaces as a WebAssembly
// trap ("unreachable", "memory access out of bounds"), never as a result. Say so plainly instead
// of passing on the bare RuntimeError (kept as `cause`), and put a fresh instance in place of
// the trapped one, so that the next call works.
function throwTrap(fn, e) {
  if (e instanceof WebAssembly.RuntimeError) {
    try {
      instance = __reinstantiate();
    } catch {
      ready = false;
    }
    throw new Error(
      `fleet-policy internal error: ${fn}() stopped on a WebAssembly trap (${e.message}); ` +
        'this is a bug in the engine — please report it with the input',
      { cause: e },
    );
  }
}

/** KubeFleet placement: which clusters each ClusterResourcePlacement picks, and why not the others. */
export function place(yaml, options) {
  return call('place', wbgPlace, yaml, options);
}

/** Karpenter NodePool disruption budgets: allowed disruptions, windows, timeline, candidates. */
export function budgets(yaml, options) {
  return call('budgets', wbgBudgets, yaml, options);
}

/** Rollouts: update runs, staged update runs and rolling updates — order, waves, timeline, states. */
export function rollout(yaml, options) {
  return call('rollout', wbgRollout, yaml, options);
}

/** Detects the kinds in the input and runs every engine that applies. */
export function evaluate(yaml, options) {
  return call('evaluate', wbgEvaluate, yaml, options);
}

/** Checks the input without evaluating it: `{ valid, errors, warnings }`. */
export function validate(yaml, options) {
  return call('validate', wbgValidate, yaml, options);
}

/** The engine version (the Rust crate's), e.g. "0.1.0". */
export function version() {
  checkReady('version');
  try {
    return wbgVersion();
  } catch (e) {
    throwTrap('version', e);
    throw e;
  }
}
