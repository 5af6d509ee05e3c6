// Starts the playground. A file of its own, not an inline script: the pages' Content-Security-Policy
// runs only the site's own files.
import init from './fleet_playground.js';

// A bug in the playground or the engine stops the module: it is built with panics as traps, so
// the trap reaches here (from an event handler, or a promise). Say so in the page, with how to
// report it, rather than leave a page that silently stopped updating.
function stopped(error) {
  if (!(error instanceof WebAssembly.RuntimeError) || document.getElementById('panic')) return;
  const div = document.createElement('div');
  div.id = 'panic';
  div.setAttribute('role', 'alert');
  div.textContent = `The playground stopped on an internal error: ${error.message}. Please report it with your input (Inputs YAML) — reloading the page starts it again.`;
  document.body.prepend(div);
}
window.addEventListener('error', (event) => stopped(event.error));
window.addEventListener('unhandledrejection', (event) => stopped(event.reason));

init();
