// host web: a model's answer as Markdown. The page has no Markdown parser:
// host web renders the text (POST /api/markdown, internal/markdown: the
// parser host chat uses, every text escaped, raw HTML as text, links only
// to http(s) URLs, no images), and this module checks that HTML again
// before it goes into the page.

// safeURL returns u when it is an http(s) URL, else null.
export function safeURL(u) {
  try {
    const x = new URL(u);
    return x.protocol === 'https:' || x.protocol === 'http:' ? x.href : null;
  } catch (_) {
    return null;
  }
}

// The text blocks of a run r (its text node r.text, of step r.textStep, in
// r.body): a block shows its text as it streams and becomes Markdown once
// complete.

function runText(r, step) {
  if (!r.text || r.textStep !== step || r.text.mdDone) {
    finishText(r);
    r.text = document.createElement('div');
    r.text.className = 'text';
    r.text.mdSource = '';
    r.textStep = step;
    r.body.append(r.text);
  }
  return r.text;
}

// addText shows a piece of the model's answer as it comes, as text.
export function addText(r, step, text) {
  const n = runText(r, step);
  n.append(text);
  n.mdSource += text;
}

// finishText renders the run's text block as Markdown once it is
// complete (a tool call, the next step or the end of the run follows it),
// as host chat does.
export function finishText(r) {
  const n = r.text;
  if (!n || n.mdDone) return;
  n.mdDone = true;
  if (n.mdSource.trim()) renderMarkdown(n, n.mdSource);
}

// renderMarkdown puts the model's Markdown text into node as host web's
// HTML for it (POST /api/markdown: the parser host chat uses, every text
// escaped, raw HTML as text, links only to http(s) URLs, no images). The
// page checks that HTML again before it goes in: an element or attribute
// that renderer does not write, or a link that is not http(s), keeps the
// plain text instead.
export async function renderMarkdown(node, text) {
  let html;
  try {
    const r = await fetch('/api/markdown', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ text }),
    });
    if (!r.ok) return;
    html = (await r.json()).html;
  } catch (_) {
    return; // the text stays as it is
  }
  const t = document.createElement('template');
  t.innerHTML = html || '';
  if (!markdownOnly(t.content)) return;
  node.replaceChildren(t.content);
  node.classList.add('md');
}

const mdTags = new Set(['P', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'STRONG', 'EM', 'CODE', 'PRE', 'BLOCKQUOTE',
  'UL', 'OL', 'LI', 'HR', 'BR', 'A', 'TABLE', 'THEAD', 'TBODY', 'TR', 'TH', 'TD']);
const mdAttrs = new Set(['class', 'align', 'start', 'rel', 'target']);

// markdownOnly reports whether a fragment holds only what the Markdown
// renderer writes.
function markdownOnly(root) {
  for (const e of root.querySelectorAll('*')) {
    if (!mdTags.has(e.tagName)) return false;
    for (const a of e.attributes) {
      if (a.name === 'href' ? !(e.tagName === 'A' && safeURL(a.value)) : !mdAttrs.has(a.name)) return false;
    }
  }
  return true;
}
