// A small static file server (Node's standard library only) for dist/: `make serve` and the
// end-to-end tests use it. Serves .wasm as application/wasm so streaming compilation works.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm', '.json': 'application/json', '.yaml': 'text/yaml; charset=utf-8',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon', '.txt': 'text/plain',
};

// What every page may load: its own files only. Wasm compiles under 'wasm-unsafe-eval' (no
// 'unsafe-eval': JavaScript's eval stays off). Styles may be inline: the playground's editor
// and the docs embed's shadow root write <style> elements, and CSS runs no script. The HTML
// pages carry the same policy in a <meta> tag, for static hosts that send no headers.
export const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; " +
  "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'";

/** Starts serving `root` on 127.0.0.1:`port` (0 = any free port); resolves to the server. */
export function serve(root, port = 0) {
  const base = resolve(root);
  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url, 'http://localhost');
      let path = normalize(join(base, decodeURIComponent(url.pathname)));
      if (!path.startsWith(base)) { res.writeHead(403, { 'x-content-type-options': 'nosniff' }).end(); return; }
      if ((await stat(path).catch(() => null))?.isDirectory()) path = join(path, 'index.html');
      const body = await readFile(path);
      res.writeHead(200, {
        'content-type': TYPES[extname(path)] ?? 'application/octet-stream', 'cache-control': 'no-cache',
        // On every response: workers take the policy of their own script's response.
        'content-security-policy': CSP, 'x-content-type-options': 'nosniff',
      });
      res.end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain', 'x-content-type-options': 'nosniff' }).end('not found');
    }
  });
  return new Promise((ok) => server.listen(port, '127.0.0.1', () => ok(server)));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [root = 'dist', port = '8080'] = process.argv.slice(2);
  const server = await serve(root, Number(port));
  console.log(`serving ${root} on http://127.0.0.1:${server.address().port}/`);
}
