// Hostile input in the playground: the Content-Security-Policy (the header and nosniff on what
// `make serve` serves, the same policy in the page's <meta> tag, no inline script, a session
// the policy never blocks), and share links crafted to inject through the "Inputs YAML"
// export's replay line.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { execFileSync } from 'node:child_process';
import { deflateRawSync } from 'node:zlib';
import { start, watchCsp, ROOT } from './browser.mjs';
import { CSP } from './serve.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env?.close(); });

test('every file is served with the Content-Security-Policy and nosniff', async () => {
  assert.doesNotMatch(CSP, /'unsafe-eval'/);
  assert.match(CSP, /default-src 'self'/);
  assert.match(CSP, /connect-src 'self'/);
  for (const path of ['/', '/index.html', '/start.js', '/fleet_playground.js', '/fleet_playground_bg.wasm', '/style.css', '/docs-demo.html']) {
    const res = await fetch(env.base + path);
    assert.equal(res.status, 200, path);
    assert.equal(res.headers.get('content-security-policy'), CSP, path);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff', path);
  }
  const missing = await fetch(env.base + '/no-such-file');
  assert.equal(missing.status, 404);
  assert.equal(missing.headers.get('x-content-type-options'), 'nosniff');
});

test('the pages carry the same policy in a meta tag and have no inline script', () => {
  for (const page of ['index.html', 'docs-demo.html']) {
    const html = readFileSync(join(ROOT, 'static', page), 'utf8');
    assert.ok(html.includes(`<meta http-equiv="Content-Security-Policy" content="${CSP}">`), page);
    // Scripts have a src, or hold YAML (data, never run).
    const inline = [...html.matchAll(/<script\b([^>]*)>/g)].map((m) => m[1])
      .filter((attrs) => !/\bsrc=/.test(attrs) && !/type="(text|application)\/yaml"/.test(attrs));
    assert.deepEqual(inline, [], page);
  }
});

test('the playground works under the policy: nothing is blocked, and an inline script would be', async () => {
  const page = await env.context.newPage();
  const blocked = await watchCsp(page);
  await page.goto(env.base + '/');
  await page.evaluate(() => localStorage.clear());
  await page.reload();
  await page.waitForSelector('.app[data-eval-seq] .cm-editor');
  await page.waitForSelector('table.clusters tbody tr');
  // An edit re-evaluates (the engine runs in wasm under 'wasm-unsafe-eval').
  const seq = () => page.$eval('.app', (el) => Number(el.dataset.evalSeq));
  const before = await seq();
  await page.click('#policy-editor .cm-line:last-child');
  await page.keyboard.press('End');
  await page.keyboard.type('\n# edited');
  await page.waitForFunction((b) => Number(document.querySelector('.app').dataset.evalSeq) > b, before);
  assert.ok((await page.$$('table.clusters tbody tr')).length > 0);
  assert.deepEqual(blocked, []);
  // The watch can see a violation: the policy refuses a script the page did not ship.
  await page.evaluate(() => {
    const s = document.createElement('script');
    s.textContent = 'window.__inlineRan = true';
    document.body.append(s);
  });
  const refused = () => blocked.some((m) => /script-src/.test(m));
  for (let i = 0; i < 50 && !refused(); i++) await page.waitForTimeout(20);
  assert.equal(await page.evaluate(() => window.__inlineRan ?? false), false);
  assert.ok(refused(), blocked.join(' | '));
  await page.close();
});

/** A share link fragment for `state` (what the playground's share button writes). */
function shareHash(state) {
  const version = readFileSync(join(ROOT, 'Cargo.toml'), 'utf8').match(/^version = "([^"]+)"/m)[1];
  const packed = deflateRawSync(Buffer.from(JSON.stringify(state)), { level: 9 });
  return `#v=${version}&s=${packed.toString('base64url')}`;
}

async function openLink(state) {
  const page = await env.context.newPage();
  await page.goto(env.base + '/?fresh');
  await page.evaluate(() => localStorage.clear());
  await page.goto(env.base + '/?link' + shareHash(state));
  await page.waitForSelector('.app[data-eval-seq] .cm-editor');
  return page;
}

test('a crafted link\'s what-ifs export as a replay line bash runs as one command, creating nothing', async () => {
  const policy = readFileSync(join(ROOT, 'static', 'examples', 'azure-update-run.yaml'), 'utf8');
  const whatIf = {
    fail: ['$(touch pwned1)', '`touch pwned2`'], pending: ['a; touch pwned3 #'], skip: ["it's \"q\" \\"],
    approve: ["r'; touch pwned4; echo '"],
  };
  const page = await openLink({ fleet: '', policy, at: '2026-03-02T08:00:00Z', view: 'rollout', whatIf, example: null });
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-yaml')]);
  const text = readFileSync(await download.path(), 'utf8');
  await page.close();
  const lines = text.split('\n');
  assert.match(lines[0], /^# Fleet Policy playground inputs/);
  assert.equal(lines[1], `# Replay: fleet-policy evaluate --at '2026-03-02T08:00:00Z' --set 'fail=["$(touch pwned1)","\`touch pwned2\`"]' --set 'pending=["a; touch pwned3 #"]' --set 'skip=["it'\\''s \\"q\\" \\\\"]' --set 'events=[{"action":"approve","request":"r'\\''; touch pwned4; echo '\\''"}]' THIS_FILE --format json`);
  // Run it: the CLI stands in as a function printing its arguments, in an empty folder.
  const dir = mkdtempSync(join(tmpdir(), 'fleet-replay-'));
  try {
    const script = `fleet-policy() { printf '%s\\n' "$@"; }\n${lines[1].slice('# Replay: '.length)}\n`;
    const args = execFileSync('bash', ['-c', script], { cwd: dir, encoding: 'utf8' }).trimEnd().split('\n');
    assert.deepEqual(readdirSync(dir), [], 'the replay line created files');
    assert.deepEqual(args.slice(0, 3), ['evaluate', '--at', '2026-03-02T08:00:00Z']);
    const set = (key) => JSON.parse(args.find((a) => a.startsWith(`${key}=`)).slice(key.length + 1));
    assert.deepEqual(set('fail'), whatIf.fail);
    assert.deepEqual(set('pending'), whatIf.pending);
    assert.deepEqual(set('skip'), whatIf.skip);
    assert.deepEqual(set('events'), [{ action: 'approve', request: whatIf.approve[0] }]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a link whose what-ifs hold a newline is refused, so it cannot add a document to the export', async () => {
  const page = await openLink({ fleet: '', policy: 'a: 1\n', at: null, view: 'rollout',
    whatIf: { fail: ['x\nkind: Injected'] }, example: null });
  assert.match(await page.textContent('#notice'),
    /The share link could not be opened: the link's what-ifs are not understood: "x\\nkind: Injected" holds a control character/);
  await page.close();
});
