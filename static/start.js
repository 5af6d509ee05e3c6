// Starts the playground, and starts it again after a trap. A file of its own, not an inline
// script: the pages' Content-Security-Policy runs only the site's own files.
import init from './fleet_playground.js';
import { editorTexts } from './editor.js';

// The module is compiled once: a restart instantiates it again (fresh memory) without a new
// download or compile.
const compiled = WebAssembly.compileStreaming(fetch(new URL('fleet_playground_bg.wasm', import.meta.url)));
let restarts = 0;
let restarting = false;

// The app renders into a host element of its own: after a trap the old host (and every event
// listener the stopped instance put on it) is thrown away with it.
function newHost() {
  document.getElementById('app-host')?.remove();
  const host = document.createElement('div');
  host.id = 'app-host';
  document.body.append(host);
  return host;
}

// A bug in the playground or the engine stops the module: it is built with panics as traps, so
// the trap reaches here (from an event handler, or a promise). The module is instantiated again
// with the editors' texts, and says so in the page; it evaluates again on the next edit (not at
// once: if the input itself trips the bug, restarting on it would trap again). A trap before the
// restarted app evaluated anything is not retried: the page says so, with how to report it.
function trapped(error) {
  if (!(error instanceof WebAssembly.RuntimeError) || restarting || document.getElementById('panic')) return;
  const seq = Number(document.querySelector('#app-host .app')?.dataset.evalSeq ?? 0);
  if (seq > 0 && restarts < 20) {
    restart(error);
    return;
  }
  const div = document.createElement('div');
  div.id = 'panic';
  div.setAttribute('role', 'alert');
  div.textContent = `The playground stopped on an internal error: ${error.message}. Please report it with your input (Inputs YAML) — reloading the page starts it again.`;
  document.body.prepend(div);
}

async function restart(error) {
  restarting = true;
  try {
    const texts = editorTexts();
    globalThis.fleetPlaygroundRestart = {
      fleet: texts['fleet-editor'] ?? null,
      policy: texts['policy-editor'] ?? null,
      error: error.message,
    };
    newHost();
    restarts += 1;
    // Another URL is another instance of the JS glue, bound to the new instance.
    const glue = await import(`./fleet_playground.js?restart=${restarts}`);
    await glue.default({ module_or_path: await compiled });
  } finally {
    restarting = false;
  }
}

window.addEventListener('error', (event) => trapped(event.error));
window.addEventListener('unhandledrejection', (event) => trapped(event.reason));

newHost();
init({ module_or_path: await compiled });
