// Starts the playground. A file of its own, not an inline script: the pages' Content-Security-Policy
// runs only the site's own files.
import init from './fleet_playground.js';

init();
