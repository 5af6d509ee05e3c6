// The playground's editor: CodeMirror 6 with YAML mode, line numbers and a lint gutter.
// Bundled by esbuild into dist/editor.js at build time (never a CDN); the Yew app calls it
// through wasm-bindgen (web/src/editor.rs). Colours come from CSS variables so the editor
// follows the page's light/dark theme.
// Only the parts the playground uses (not `basicSetup`, which also brings autocompletion and
// search): keeps the bundle small.
import { EditorState, StateEffect, StateField, RangeSetBuilder, Annotation, Compartment } from '@codemirror/state';
import {
  EditorView, Decoration, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter,
  highlightSpecialChars, drawSelection,
} from '@codemirror/view';
import { yaml } from '@codemirror/lang-yaml';
import { setDiagnostics as cmSetDiagnostics, lintGutter, lintKeymap } from '@codemirror/lint';
import { syntaxHighlighting, foldGutter, foldKeymap, indentOnInput, bracketMatching } from '@codemirror/language';
import { classHighlighter } from '@lezer/highlight';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';

const setup = [
  lineNumbers(), highlightActiveLineGutter(), highlightSpecialChars(), history(), foldGutter(),
  drawSelection(), indentOnInput(), bracketMatching(), highlightActiveLine(),
  keymap.of([...defaultKeymap, ...historyKeymap, ...foldKeymap, ...lintKeymap, indentWithTab]),
];

const theme = EditorView.theme({
  '&': { backgroundColor: 'var(--editor-bg)', color: 'var(--fg)', fontSize: '13px', height: '100%' },
  '.cm-content': { caretColor: 'var(--fg)', fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace' },
  '.cm-gutters': { backgroundColor: 'var(--editor-gutter)', color: 'var(--muted)', borderRight: '1px solid var(--border)' },
  '.cm-activeLine': { backgroundColor: 'var(--editor-active)' },
  '.cm-activeLineGutter': { backgroundColor: 'var(--editor-active)' },
  '&.cm-focused .cm-cursor': { borderLeftColor: 'var(--fg)' },
  '.cm-selectionBackground, &.cm-focused .cm-selectionBackground, ::selection': { backgroundColor: 'var(--editor-selection) !important' },
  '.cm-scroller': { overflow: 'auto' },
  '.cm-decided': { backgroundColor: 'var(--highlight)', outline: '1px solid var(--accent)' },
});

// Above this size the YAML parser (highlighting, folding) is switched off: on a 7 MB kubectl
// dump it kept the main thread busy for seconds after the paste, in slices that delayed every
// keystroke. The engine's markers still show.
const LARGE = 1_000_000;
const language = new Compartment();
const languageFor = (length) => (length > LARGE ? [] : yaml());
const switchLanguage = EditorState.transactionExtender.of((tr) => {
  if (!tr.docChanged || (tr.startState.doc.length > LARGE) === (tr.newDoc.length > LARGE)) return null;
  return { effects: language.reconfigure(languageFor(tr.newDoc.length)) };
});

// Lines highlighted because a selected result (a cluster, a budget) was decided there.
const setHighlight = StateEffect.define();
const highlightField = StateField.define({
  create: () => Decoration.none,
  update(deco, tr) {
    deco = deco.map(tr.changes);
    for (const e of tr.effects) if (e.is(setHighlight)) deco = e.value;
    return deco;
  },
  provide: (f) => EditorView.decorations.from(f),
});
const decidedLine = Decoration.line({ class: 'cm-decided' });

// The editors by their host's id: after a trap, start.js restarts the module with their texts.
const editors = new Map();

/** The text of each editor, by the id of its host element. */
export function editorTexts() {
  return Object.fromEntries([...editors].map(([id, view]) => [id, view.state.doc.toString()]));
}

const utf8 = new TextEncoder();

/**
 * Creates an editor in `parent` holding `text`; `onChange(changes, length)` runs after every
 * edit with the changes as a flat array `[from, to, inserted, …]` (positions in the old text,
 * UTF-16 units, in ascending order; the inserted text as UTF-8 bytes) and the new length: a
 * keystroke in a 7 MB fleet sends one character, not the text. `label` names the editor for
 * assistive technology.
 */
export function createEditor(parent, text, label, onChange) {
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: text,
      extensions: [
        setup,
        language.of(languageFor(text.length)),
        switchLanguage,
        lintGutter(),
        syntaxHighlighting(classHighlighter),
        theme,
        highlightField,
        EditorView.contentAttributes.of({ 'aria-label': label }),
        EditorView.updateListener.of((u) => {
          if (u.docChanged && !u.transactions.some((t) => t.annotation(external))) {
            const changes = [];
            // Inserted text as UTF-8 bytes: a JS string crosses into wasm one character at a
            // time (64 ms of a 7.7 MB paste in Chromium), bytes in one copy.
            u.changes.iterChanges((fromA, toA, _fromB, _toB, inserted) => changes.push(fromA, toA, utf8.encode(inserted.toString())));
            onChange(changes, u.state.doc.length);
          }
        }),
      ],
    }),
  });
  if (parent.id) editors.set(parent.id, view);
  return view;
}

// Marks transactions made by the app (setText), which must not echo back as user edits.
const external = Annotation.define();

/** Replaces the whole text (loading an example or a shared link). */
export function setText(view, text) {
  if (view.state.doc.toString() === text) return;
  view.dispatch({
    changes: { from: 0, to: view.state.doc.length, insert: text },
    annotations: external.of(true),
    effects: setHighlight.of(Decoration.none),
  });
}

/** The current text. */
export function getText(view) {
  return view.state.doc.toString();
}

function pos(doc, line, column) {
  const l = doc.line(Math.min(Math.max(1, line), doc.lines));
  return Math.min(l.from + Math.max(0, column - 1), l.to);
}

/**
 * Shows engine diagnostics as markers: `diags` is an array of
 * {line, column, severity: "error"|"warning", message} (1-based line:column).
 */
export function setDiagnostics(view, diags) {
  const doc = view.state.doc;
  const list = diags.map((d) => {
    const from = pos(doc, d.line, d.column);
    const line = doc.lineAt(from);
    // Underline to the end of the token (or the line when the token is empty).
    const rest = doc.sliceString(from, line.to);
    const m = /^[^\s,:\]}]+/.exec(rest);
    const to = m ? from + m[0].length : line.to;
    return { from, to: Math.max(to, from), severity: d.severity, message: d.message, source: 'fleet-policy' };
  });
  view.dispatch(cmSetDiagnostics(view.state, list));
}

/** Moves the cursor to line:column, scrolls it into view and focuses the editor. */
export function focusLine(view, line, column) {
  const at = pos(view.state.doc, line, column);
  view.dispatch({ selection: { anchor: at }, scrollIntoView: true });
  view.focus();
}

/** Highlights the given 1-based lines (empty array clears) and scrolls the first into view. */
export function highlightLines(view, lines) {
  const doc = view.state.doc;
  const b = new RangeSetBuilder();
  const sorted = [...new Set(lines)].filter((l) => l >= 1 && l <= doc.lines).sort((a, b) => a - b);
  for (const l of sorted) { const line = doc.line(l); b.add(line.from, line.from, decidedLine); }
  const effects = [setHighlight.of(b.finish())];
  if (sorted.length) effects.push(EditorView.scrollIntoView(doc.line(sorted[0]).from, { y: 'center' }));
  view.dispatch({ effects });
}
