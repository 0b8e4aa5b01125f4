// host web: servers' prompts are the user's (a "/" menu, a form per prompt
// whose fields complete through prompts.complete) and their resources the
// application's (an attach menu from resources.list and
// resources.templates.list, a template's variable completed through
// resources.complete). Every server string goes into the page as text only.
'use strict';
(function () {
  const { rpc, el, note, notifications } = window.hostWeb;
  const $ = (id) => document.getElementById(id);
  const input = $('prompt');
  const attached = []; // {server, uri}
  let prompts = null;

  async function loadPrompts() {
    if (!prompts) prompts = (await rpc.promptsList({})).prompts || [];
    return prompts;
  }

  function hideMenu() {
    $('slash-menu').hidden = true;
    $('slash-menu').replaceChildren();
  }

  // slashMenu lists the prompts whose /server:name starts with the input.
  async function slashMenu() {
    const v = input.value;
    if (!v.startsWith('/') || /\s/.test(v)) return hideMenu();
    let list;
    try { list = await loadPrompts(); } catch (err) { return note(err.message, 'error'); }
    if (input.value !== v) return;
    const items = list.filter((p) => ('/' + p.server + ':' + p.name).startsWith(v)).slice(0, 30);
    $('slash-menu').replaceChildren(...items.map((p) => el('button', {
      type: 'button', class: 'menu-item', 'data-prompt': p.server + ':' + p.name, onclick: () => choosePrompt(p),
    }, el('span', { class: 'name', text: '/' + p.server + ':' + p.name }), el('span', { class: 'muted', text: ' ' + (p.title || p.description || '') }))));
    $('slash-menu').hidden = items.length === 0;
  }

  // completer fills datalist dl with the values fetch answers as field f
  // changes.
  function completer(f, dl, fetchValues) {
    let seq = 0;
    const update = async () => {
      const mine = ++seq;
      try {
        const values = await fetchValues(f.value);
        if (mine === seq) dl.replaceChildren(...values.map((v) => el('option', { value: v })));
      } catch (err) { /* no completions */ }
    };
    f.addEventListener('input', update);
    f.addEventListener('focus', update);
  }

  let listIDs = 0;

  // choosePrompt shows a form with a field per argument of prompt p.
  function choosePrompt(p) {
    hideMenu();
    input.value = '';
    const id = p.server + ':' + p.name;
    const form = el('form', { class: 'prompt-args', 'data-prompt': id });
    form.append(el('div', { class: 'title', text: '/' + id + (p.description ? ' — ' + p.description : '') }));
    const fields = {};
    const chosen = (except) => {
      const args = {};
      for (const [k, x] of Object.entries(fields)) if (k !== except && x.value) args[k] = x.value;
      return args;
    };
    for (const a of p.arguments || []) {
      const dl = el('datalist', { id: 'complete-' + (++listIDs) });
      const f = el('input', { name: a.name, list: dl.id, autocomplete: 'off', placeholder: a.name + (a.required ? ' (required)' : '') });
      completer(f, dl, async (value) => (await rpc.promptsComplete({ server: p.server, prompt: p.name, argument: a.name, value, arguments: chosen(a.name) })).values || []);
      fields[a.name] = f;
      form.append(el('label', { text: a.name + ' ' }, f, dl));
    }
    form.append(el('button', { type: 'submit', class: 'run-prompt', text: 'Run prompt' }), el('button', { type: 'button', text: 'Cancel', onclick: () => form.remove() }));
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      form.remove();
      runPrompt(p.server, p.name, chosen(''));
    });
    $('prompt-form').before(form);
    (Object.values(fields)[0] || form.querySelector('button')).focus();
  }

  // runPrompt gets the prompt and runs its messages as the user's turn;
  // the transcript says which prompt they came from (app.js's userTurn).
  async function runPrompt(server, name, args) {
    let got;
    try { got = await rpc.promptsGet({ server, name, arguments: args }); } catch (err) { return note(err.message, 'error'); }
    // prompt is required by the schema; it may be empty with messages.
    window.hostWeb.startRun({ prompt: '', messages: got.messages }, server + ':' + name);
  }

  // typed runs "/server:name arg=value …" typed whole; false if text is
  // not a prompt command.
  function typed(text) {
    const m = /^\/([A-Za-z0-9_-]+):(\S+)(.*)$/s.exec(text);
    if (!m) return false;
    const args = {};
    for (const w of m[3].match(/\S+="[^"]*"|\S+/g) || []) {
      const i = w.indexOf('=');
      if (i > 0) args[w.slice(0, i)] = w.slice(i + 1).replace(/^"(.*)"$/s, '$1');
    }
    runPrompt(m[1], m[2], args);
    return true;
  }

  // watched maps server + ' ' + uri to its row in #watched.
  const watched = new Map();

  // watch subscribes to a resource's changes; resources.updated then
  // counts them in its row.
  async function watch(server, uri) {
    const key = server + ' ' + uri;
    if (watched.has(key)) return;
    try { await rpc.resourcesSubscribe({ server, uri }); } catch (err) { return note(err.message, 'error'); }
    const status = el('span', { class: 'muted', text: ' watching' });
    const row = el('div', { class: 'watched', 'data-uri': uri }, el('span', { text: server + ':' + uri }), status,
      el('button', { type: 'button', text: 'unwatch', onclick: async () => {
        watched.delete(key);
        row.remove();
        try { await rpc.resourcesUnsubscribe({ server, uri }); } catch (err) { note(err.message, 'error'); }
      } }));
    row.changes = 0;
    row.status = status;
    watched.set(key, row);
    $('watched').append(row);
  }

  function notification(method, p) {
    if (method !== notifications.resourcesUpdated) return false;
    const row = watched.get(p.server + ' ' + p.uri);
    if (row) {
      row.changes++;
      row.status.textContent = ' changed ' + row.changes + '× (last ' + new Date().toLocaleTimeString() + ')';
      row.classList.add('changed');
    }
    return true;
  }

  function renderChips() {
    $('attachments').replaceChildren(...attached.map((a, i) => el('span', { class: 'chip', 'data-uri': a.uri },
      el('span', { text: a.server + ':' + a.uri }),
      el('button', { type: 'button', class: 'watch', title: 'show when it changes', text: 'watch', onclick: () => watch(a.server, a.uri) }),
      el('button', { type: 'button', title: 'remove', text: '×', onclick: () => { attached.splice(i, 1); renderChips(); } }))));
  }

  function attach(server, uri) {
    if (!attached.some((a) => a.server === server && a.uri === uri)) attached.push({ server, uri });
    renderChips();
    $('attach-menu').hidden = true;
    input.focus();
  }

  // attachMenu lists the servers' resources and templates.
  async function attachMenu() {
    const menu = $('attach-menu');
    if (!menu.hidden) { menu.hidden = true; return; }
    let rs, ts;
    try {
      [rs, ts] = await Promise.all([rpc.resourcesList({}), rpc.resourcesTemplatesList({})]);
    } catch (err) { return note(err.message, 'error'); }
    const rows = (rs.resources || []).map((r) => el('button', { type: 'button', class: 'menu-item resource', 'data-uri': r.uri, onclick: () => attach(r.server, r.uri) },
      el('span', { class: 'name', text: r.server + ':' + (r.name || r.uri) }), el('span', { class: 'muted', text: ' ' + r.uri })));
    for (const t of ts.templates || []) {
      const vars = [...t.uri_template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const row = el('form', { class: 'menu-item template', 'data-template': t.uri_template }, el('span', { class: 'name', text: t.server + ':' + t.uri_template + ' ' }));
      const fields = {};
      for (const v of vars) {
        const dl = el('datalist', { id: 'complete-' + (++listIDs) });
        const f = el('input', { name: v, list: dl.id, placeholder: v, autocomplete: 'off' });
        completer(f, dl, async (value) => (await rpc.resourcesComplete({ server: t.server, uri_template: t.uri_template, argument: v, value })).values || []);
        fields[v] = f;
        row.append(f, dl);
      }
      row.append(el('button', { type: 'submit', text: 'Attach' }));
      row.addEventListener('submit', (ev) => {
        ev.preventDefault();
        attach(t.server, t.uri_template.replace(/\{([^}]+)\}/g, (_, v) => encodeURIComponent(fields[v].value)));
      });
      rows.push(row);
    }
    menu.replaceChildren(...rows);
    menu.hidden = false;
  }

  input.addEventListener('input', slashMenu);
  $('attach').addEventListener('click', attachMenu);
  window.hostPrims = {
    typed,
    notification,
    // take hands the attachments to a message and clears them.
    take() {
      const out = attached.splice(0);
      renderChips();
      return out;
    },
  };
})();
