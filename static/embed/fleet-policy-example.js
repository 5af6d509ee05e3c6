// <fleet-policy-example>: a live Fleet Policy example for documentation pages.
//
//   <script type="module" src="/embed/fleet-policy-example.js"></script>
//   <fleet-policy-example view="placement" at="2026-03-04T12:00:00Z" editable>
//     <script type="text/yaml"> …MemberClusters and a ClusterResourcePlacement… </script>
//   </fleet-policy-example>
//
// Attributes: view = placement | budgets | rollout (default placement); at = the evaluation
// instant, RFC 3339 (default: now); editable (boolean: the YAML becomes a text area and the
// result follows edits); src = URL of the YAML instead of inline text; playground = URL of
// the playground (default: the site root next to embed/); theme = light | dark pins the colours
// for pages with their own theme switch (default: follow prefers-color-scheme).
// The YAML may be the element's text or sit in a child <script type="text/yaml"> (which keeps
// "<" and indentation intact); common indentation is removed.
//
// Every element on a page shares one engine instance (the npm package's browser build in
// ./engine/), loaded when the first element comes near the viewport. Styles live in a shadow
// root and follow prefers-color-scheme; the page can override the colours with the custom
// properties --fpe-bg, --fpe-fg, --fpe-muted, --fpe-border, --fpe-accent, --fpe-code-bg.
// Nothing is fetched except this module, the engine's files and a `src` the page names.
//
// "Open in playground" carries the state in the URL fragment, defined here:
//   #yaml=<base64url of the UTF-8 YAML, no padding>&view=<view>&at=<RFC 3339>&v=<engine version>
// encodeState/decodeState are exported for the playground and for tests.

const VIEWS = ['placement', 'budgets', 'rollout'];
const UNBOUNDED = 2147483647;

/** Encodes an example's state as a URL fragment (without the leading "#"). */
export function encodeState({ yaml, view, at, version }) {
  const bytes = new TextEncoder().encode(yaml);
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  const b64 = btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  const params = new URLSearchParams();
  params.set('yaml', b64);
  if (view) params.set('view', view);
  if (at) params.set('at', at);
  if (version) params.set('v', version);
  return params.toString();
}

/** Decodes a fragment made by encodeState (with or without the leading "#"). */
export function decodeState(fragment) {
  const params = new URLSearchParams(String(fragment).replace(/^#/, ''));
  const b64 = (params.get('yaml') || '').replace(/-/g, '+').replace(/_/g, '/');
  const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  const yaml = new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
  return { yaml, view: params.get('view') || 'placement', at: params.get('at') || undefined, version: params.get('v') || undefined };
}

// One engine for the whole page, imported and instantiated on first need.
let engine = null;
function loadEngine() {
  if (!engine) {
    engine = import('./engine/index.js').then(async (m) => {
      // The separate .wasm, stream-compiled (the package's embedded copy is not downloaded).
      await m.init(new URL('./engine/fleet_policy_bg.wasm', import.meta.url));
      return m;
    });
  }
  return engine;
}

// One observer for every element: an element asks for the engine when it nears the viewport.
let observer = null;
function observe(el) {
  if (typeof IntersectionObserver === 'undefined') {
    el._visible();
    return;
  }
  observer ??= new IntersectionObserver((entries) => {
    for (const e of entries) {
      if (e.isIntersecting) {
        observer.unobserve(e.target);
        e.target._visible();
      }
    }
  }, { rootMargin: '200px 0px' });
  observer.observe(el);
}

function dedent(text) {
  const lines = text.replace(/\t/g, '  ').split('\n');
  while (lines.length && !lines[0].trim()) lines.shift();
  while (lines.length && !lines[lines.length - 1].trim()) lines.pop();
  const indents = lines.filter((l) => l.trim()).map((l) => l.match(/^ */)[0].length);
  const cut = indents.length ? Math.min(...indents) : 0;
  return lines.map((l) => l.slice(cut)).join('\n') + '\n';
}

function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

const count = (n) => (n === UNBOUNDED ? 'unbounded' : String(n));
const shortTime = (t) => (typeof t === 'string' ? t.replace(/:00(\.0+)?Z$/, 'Z').replace('T', ' ') : String(t));

const STYLE = `
:host { display: block; margin: 1rem 0; font: 14px/1.45 system-ui, sans-serif;
  --fpe-bg: #ffffff; --fpe-fg: #1f2328; --fpe-muted: #59636e; --fpe-border: #d1d9e0;
  --fpe-accent: #0969da; --fpe-code-bg: #f6f8fa; --fpe-ok: #1a7f37; --fpe-bad: #cf222e; color-scheme: light; }
@media (prefers-color-scheme: dark) {
  :host(:not([theme="light"])) { --fpe-bg: #0d1117; --fpe-fg: #e6edf3; --fpe-muted: #9198a1; --fpe-border: #3d444d;
    --fpe-accent: #4493f8; --fpe-code-bg: #151b23; --fpe-ok: #3fb950; --fpe-bad: #f85149; color-scheme: dark; }
}
:host([theme="dark"]) { --fpe-bg: #0d1117; --fpe-fg: #e6edf3; --fpe-muted: #9198a1; --fpe-border: #3d444d;
  --fpe-accent: #4493f8; --fpe-code-bg: #151b23; --fpe-ok: #3fb950; --fpe-bad: #f85149; color-scheme: dark; }
:host([hidden]) { display: none; }
.box { border: 1px solid var(--fpe-border); border-radius: 8px; background: var(--fpe-bg); color: var(--fpe-fg); overflow: hidden; }
header { display: flex; gap: .5rem; align-items: baseline; justify-content: space-between; padding: .4rem .75rem;
  border-bottom: 1px solid var(--fpe-border); color: var(--fpe-muted); font-size: 12px; }
header b { color: var(--fpe-fg); text-transform: capitalize; }
.cols { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); }
@media (max-width: 640px) { .cols { grid-template-columns: minmax(0, 1fr); } }
pre, textarea { margin: 0; padding: .6rem .75rem; font: 12px/1.5 ui-monospace, SFMono-Regular, Menlo, monospace;
  background: var(--fpe-code-bg); color: var(--fpe-fg); border: 0; overflow: auto; max-height: 22rem; box-sizing: border-box; }
textarea { width: 100%; min-height: 14rem; resize: vertical; }
.result { padding: .5rem .75rem; border-left: 1px solid var(--fpe-border); min-width: 0; }
@media (max-width: 640px) { .result { border-left: 0; border-top: 1px solid var(--fpe-border); } }
h4 { margin: .2rem 0 .3rem; font-size: 13px; }
ol, ul { margin: .2rem 0 .5rem; padding-left: 1.4rem; }
li { margin: .1rem 0; }
.w { font-variant-numeric: tabular-nums; color: var(--fpe-muted); }
.picked { color: var(--fpe-ok); }
.filtered, .error { color: var(--fpe-bad); }
.muted { color: var(--fpe-muted); font-size: 12px; }
summary { cursor: pointer; }
.warning { color: var(--fpe-muted); }
table { border-collapse: collapse; margin: .2rem 0 .5rem; font-variant-numeric: tabular-nums; }
th, td { text-align: left; padding: .1rem .6rem .1rem 0; }
footer { display: flex; justify-content: flex-end; padding: .35rem .75rem; border-top: 1px solid var(--fpe-border); font-size: 12px; }
a { color: var(--fpe-accent); }
`;


/**
 * The playground the "Open in playground" link leads to: the `playground` attribute resolved
 * against the page, when it is an http(s) URL or a relative one (on a page opened from a file,
 * a relative URL is a file: URL); else the site root next to embed/. A `javascript:` or `data:`
 * URL in a link runs script when clicked, so page authors pasting an attribute cannot be led
 * into one.
 */
export function playgroundUrl(attribute, pageBase = document.baseURI) {
  const fallback = new URL('../', import.meta.url);
  if (!attribute) return fallback;
  let url;
  try {
    url = new URL(attribute, pageBase);
  } catch {
    return fallback;
  }
  const page = new URL(pageBase).protocol;
  const allowed = url.protocol === 'http:' || url.protocol === 'https:' || (url.protocol === 'file:' && page === 'file:');
  return allowed ? url : fallback;
}

class FleetPolicyExample extends HTMLElement {
  static observedAttributes = ['view', 'at', 'src', 'editable'];

  constructor() {
    super();
    this.attachShadow({ mode: 'open' });
    this._yaml = null;
    this._engine = null;
    this._timer = 0;
  }

  get view() {
    const v = (this.getAttribute('view') || 'placement').toLowerCase();
    return VIEWS.includes(v) ? v : 'placement';
  }

  /** The YAML currently shown (edits included). */
  get yaml() {
    return this._yaml ?? '';
  }

  /** The evaluation instant used: the `at` attribute, or the time the example first rendered. */
  get at() {
    return this.getAttribute('at') || (this._now ??= new Date().toISOString().replace(/\.\d+Z$/, 'Z'));
  }

  /** The last result object (for scripts and tests). */
  get result() {
    return this._result;
  }

  async connectedCallback() {
    if (this._started) return;
    this._started = true;
    this._renderShell();
    await this._loadYaml();
    this._renderSource();
    observe(this);
  }

  attributeChangedCallback(name, old, value) {
    if (!this._started || old === value) return;
    if (name === 'src') {
      this._loadYaml().then(() => { this._renderSource(); this._evaluate(); });
    } else if (name === 'editable') {
      this._renderSource();
    } else {
      this._header();
      this._evaluate();
    }
  }

  async _loadYaml() {
    const src = this.getAttribute('src');
    if (src) {
      try {
        const res = await fetch(new URL(src, document.baseURI));
        if (!res.ok) throw new Error(`${res.status} ${res.statusText}`);
        this._yaml = await res.text();
      } catch (e) {
        this._yaml = `# could not load ${src}: ${e.message}\n`;
      }
    } else {
      const script = this.querySelector('script[type="text/yaml"], script[type="application/yaml"]');
      this._yaml = dedent(script ? script.textContent : this.textContent);
    }
  }

  _renderShell() {
    const root = this.shadowRoot;
    root.replaceChildren();
    root.append(h('style', {}, STYLE));
    this._headerEl = h('header', { part: 'header' });
    this._sourceEl = h('div', { class: 'source', part: 'source' });
    this._resultEl = h('div', { class: 'result', part: 'result', 'aria-live': 'polite' }, h('span', { class: 'muted' }, 'Loading the engine…'));
    this._link = h('a', { part: 'playground-link', target: '_blank', rel: 'noopener' }, 'Open in playground ↗');
    root.append(h('div', { class: 'box' }, this._headerEl, h('div', { class: 'cols' }, this._sourceEl, this._resultEl), h('footer', {}, this._link)));
    this._header();
  }

  _header() {
    this._headerEl.replaceChildren(h('b', {}, this.view), h('span', {}, `at ${shortTime(this.at)} UTC`));
  }

  _renderSource() {
    if (this.hasAttribute('editable')) {
      const ta = h('textarea', { 'aria-label': 'YAML (editable)', spellcheck: 'false' });
      ta.value = this.yaml;
      ta.addEventListener('input', () => {
        this._yaml = ta.value;
        clearTimeout(this._timer);
        this._timer = setTimeout(() => this._evaluate(), 150);
      });
      this._sourceEl.replaceChildren(ta);
    } else {
      this._sourceEl.replaceChildren(h('pre', { 'aria-label': 'YAML' }, this.yaml));
    }
    this._updateLink();
  }

  _visible() {
    loadEngine().then((m) => {
      this._engine = m;
      this._evaluate();
    }, (e) => {
      this._resultEl.replaceChildren(h('p', { class: 'error' }, `The engine could not be loaded: ${e.message}`));
    });
  }

  _updateLink() {
    const base = playgroundUrl(this.getAttribute('playground'));
    base.hash = encodeState({ yaml: this.yaml, view: this.view, at: this.at, version: this._engine?.version() });
    this._link.href = base.href;
  }

  _evaluate() {
    this._updateLink();
    const m = this._engine;
    if (!m) return;
    const fn = { placement: m.place, budgets: m.budgets, rollout: m.rollout }[this.view];
    let result;
    try {
      result = fn(this.yaml, { at: this.at, source: this.getAttribute('src') || 'example.yaml' });
    } catch (e) {
      this._resultEl.replaceChildren(h('p', { class: 'error' }, e.message));
      return;
    }
    this._result = result;
    const body = [];
    if (this.view === 'placement') body.push(...renderPlacements(result));
    if (this.view === 'budgets') body.push(...renderBudgets(result));
    if (this.view === 'rollout') body.push(...renderRollouts(result));
    body.push(...renderDiagnostics(result));
    this._resultEl.replaceChildren(...body);
    this.dataset.state = result.errors.length ? 'error' : 'ok';
    this.dispatchEvent(new CustomEvent('fleet-policy-result', { detail: result }));
  }
}

function renderDiagnostics(r) {
  const item = (kind) => (d) => h('li', { class: kind, 'data-line': d.line, 'data-column': d.column },
    `${kind} ${d.line}:${d.column}${d.path ? ` ${d.path}` : ''} — ${d.message}`);
  const out = [];
  if (r.errors.length) out.push(h('ul', { class: 'diagnostics', part: 'diagnostics' }, r.errors.map(item('error'))));
  // Notices (hand-written clusters, ignored kinds, stale heartbeats) are the engine's words.
  if (r.notices?.length) {
    out.push(h('ul', { class: 'notices muted', part: 'notices' }, r.notices.map((n) => h('li', { class: 'notice', 'data-kind': n.kind }, n.message))));
  }
  // Warnings stay folded.
  if (r.warnings.length) {
    out.push(h('details', { class: 'warnings' }, h('summary', { class: 'muted' }, `${r.warnings.length} warning${r.warnings.length > 1 ? 's' : ''}`),
      h('ul', {}, r.warnings.map(item('warning')))));
  }
  return out;
}

function renderPlacements(r) {
  if (!r.placements.length && !r.errors.length) return [h('p', { class: 'muted' }, 'No ClusterResourcePlacement in the YAML.')];
  return r.placements.map((p) => h('section', { class: 'placement', 'data-name': p.name },
    h('h4', {}, p.name),
    h('ol', { class: 'picked-list' }, p.picked.map((c) => h('li', { class: 'picked', 'data-cluster': c.cluster },
      c.cluster, ' ', h('span', { class: 'w' }, `affinity ${c.affinityScore ?? 0} · spread ${c.topologySpreadScore ?? 0}`)))),
    (p.notPicked ?? []).length ? h('p', { class: 'muted' }, 'Scored, not picked:') : null,
    (p.notPicked ?? []).length ? h('ul', { class: 'not-picked-list' }, p.notPicked.map((c) => h('li', { 'data-cluster': c.cluster },
      c.cluster, ' ', h('span', { class: 'w' }, `affinity ${c.affinityScore} · spread ${c.topologySpreadScore}`)))) : null,
    p.filtered.length ? h('ul', { class: 'filtered-list' }, p.filtered.map((f) => h('li', { class: 'filtered', 'data-cluster': f.cluster },
      `${f.cluster} — ${f.plugin}`))) : null,
    p.condition ? h('p', { class: 'muted condition' }, p.condition.message) : null));
}

function renderBudgets(r) {
  if (!r.nodePools.length && !r.errors.length) return [h('p', { class: 'muted' }, 'No NodePool in the YAML.')];
  return r.nodePools.map((np) => {
    const allowed = np.allowedDisruptions ?? {};
    const binding = (np.activeBudgets ?? []).filter((b) => (b.binding ?? []).length);
    // The timeline starts at the evaluation instant; the next changes are the later points.
    const next = (np.timeline ?? []).filter((t) => !r.at || t.at > r.at).slice(0, 3);
    return h('section', { class: 'nodepool', 'data-name': np.name },
      h('h4', {}, np.name, h('span', { class: 'w' }, ` · ${np.nodes?.total ?? '?'} nodes`)),
      h('table', { class: 'allowed' },
        h('thead', {}, h('tr', {}, h('th', {}, 'reason'), h('th', {}, 'allowed now'))),
        h('tbody', {}, Object.keys(allowed).map((k) => h('tr', { 'data-reason': k }, h('td', {}, k), h('td', { class: 'n' }, count(allowed[k])))))),
      binding.length ? h('ul', { class: 'binding' }, binding.map((b) => h('li', { 'data-budget': b.index },
        `budget #${b.index} (nodes ${b.nodes}) binds ${b.binding.join(', ')}`,
        b.activeUntil ? ` until ${shortTime(b.activeUntil)}` : ''))) : null,
      next.length ? h('p', { class: 'muted' }, 'Next windows:') : null,
      next.length ? h('ul', { class: 'timeline' }, next.map((t) => h('li', { 'data-at': t.at },
        `${shortTime(t.at)}: `, Object.entries(t.allowedDisruptions ?? {}).map(([k, v]) => `${k} ${count(v)}`).join(', ')))) : null,
      np.failClosed ? h('p', { class: 'error' }, 'A budget is invalid: Karpenter allows 0 disruptions for every reason.') : null);
  });
}

function renderRollouts(r) {
  if (!r.rollouts.length && !r.errors.length) return [h('p', { class: 'muted' }, 'No rollout in the YAML.')];
  const hm = (t) => (t ? shortTime(t).slice(11) : '—');
  const member = (m, i) => h('span', { class: 'member', 'data-cluster': m.cluster, 'data-state': m.state },
    i ? ' → ' : '', m.cluster, h('span', { class: 'w' }, m.start ? ` ${hm(m.start)}` : ` ${m.state}`));
  const group = (g) => h('li', { class: 'group', 'data-group': g.name }, `${g.name}: `, (g.members ?? []).map(member));
  const wait = (w) => h('li', { class: 'wait muted' }, `${w.kind}${w.seconds ? ` ${w.seconds / 60} min` : ''} ${hm(w.start)}–${hm(w.end)}`);
  const stage = (s) => h('li', { class: 'stage', 'data-stage': s.name }, h('b', {}, s.name), s.start ? h('span', { class: 'w' }, ` ${hm(s.start)}–${hm(s.end)}`) : null,
    h('ul', {}, (s.groups ?? []).map(group), (s.waits ?? []).map(wait)));
  return r.rollouts.map((ro) => h('section', { class: 'rollout', 'data-name': ro.name },
    h('h4', {}, ro.name, h('span', { class: 'w state' }, ` · ${ro.kind} · ${ro.state}`)),
    h('ol', { class: 'stages' }, (ro.stages ?? []).map(stage)),
    ro.end ? h('p', { class: 'muted' }, `${shortTime(ro.start)} → ${shortTime(ro.end)}`) : null));
}

if (!customElements.get('fleet-policy-example')) customElements.define('fleet-policy-example', FleetPolicyExample);
