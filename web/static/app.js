// host web: the page. It speaks the mcp-host UI protocol (protocol/PROTOCOL.md)
// through the bridge: requests go out with POST /api/call, answers to the
// runtime's questions with POST /api/answer, and everything the runtime sends
// arrives on the event stream /api/events.
//
// Every string from the runtime, a server or the model is untrusted: it is
// only ever put into the page as text (textContent), never as HTML, and a
// link is made only from an http(s) URL the runtime asks the user to open.
// The one exception is the model's answer, shown as Markdown: host web
// renders it and the page checks the result (markdown.js).
//
// The protocol's names come from protocol.js, generated from the schema
// with the TypeScript client (make protocol): a request is sent through
// rpc (one function per request, its params checked against the schema),
// the runtime's requests are told apart by UI_HANDLERS, notifications by
// NOTIFICATIONS, and answers are checked against ANSWERS; the page writes
// no method name, field list or error code of its own.
import { ANSWERS, ERROR_CODES, NOTIFICATIONS as N, UI_HANDLERS, bindMethods, checkFields } from './protocol.js';
import { addText, finishText, safeURL } from './markdown.js';
import { drawServers } from './servers.js';
import { askCards } from './asks.js';

const state = {
  init: null,
  servers: new Map(),
  runs: new Map(),
  conversation: null,
  activeRun: null,
  asks: new Map(),
  askMethods: new Map(), // id of a runtime request -> its method
};

// ---- the bridge ----

// call sends one protocol request through the bridge; the page calls it
// only through rpc. from names, on a run.start, the prompt whose messages
// the turn sends: the bridge keeps it in the transcript, and does not
// relay it.
async function call(method, params, from) {
  const r = await fetch('/api/call', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(from ? { method, params, from } : { method, params }),
  });
  if (!r.ok) throw new Error(method + ': HTTP ' + r.status + ' ' + (await r.text()));
  const a = await r.json();
  if (a.error) {
    const e = new Error(a.error.message);
    e.code = a.error.code;
    e.data = a.error.data;
    throw e;
  }
  return a.result;
}

const rpc = bindMethods(call);

async function answer(id, result, error) {
  const method = state.askMethods.get(id);
  if (result && ANSWERS[method]) {
    try {
      checkFields(ANSWERS, method, result);
    } catch (err) {
      note('cannot answer: ' + err.message, 'error');
      return;
    }
  }
  const r = await fetch('/api/answer', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(error ? { id, error } : { id, result }),
  });
  removeAsk(id);
  if (!r.ok && r.status !== 404) note('answer failed: HTTP ' + r.status);
}

// ---- DOM helpers: text only ----

function el(tag, attrs, ...children) {
  const n = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') n.className = v;
    else if (k === 'text') n.textContent = v;
    else if (k.startsWith('on')) n.addEventListener(k.slice(2), v);
    else n.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue;
    n.append(typeof c === 'string' ? document.createTextNode(c) : c);
  }
  return n;
}

const $ = (id) => document.getElementById(id);

function pretty(v) {
  if (typeof v === 'string') return v;
  try { return JSON.stringify(v, null, 2); } catch (_) { return String(v); }
}

function scrollLog() {
  const log = $('log');
  log.scrollTop = log.scrollHeight;
}

function note(text, cls) {
  $('log').append(el('div', { class: 'note ' + (cls || '') , text }));
  scrollLog();
}

// ---- events from the runtime ----

function handle(e) {
  switch (e.kind) {
    case 'hello': return hello(e);
    case 'user': return userTurn(e);
    case 'conversation': state.conversation = e.conversation; return;
    case 'cleared': state.conversation = null; return clearLog();
    case 'notification': return notification(e.method, e.params || {});
    case 'request': return showAsk(e);
    case 'answered':
    case 'withdrawn': return removeAsk(e.id, e.kind === 'withdrawn' ? e.reason : '');
    case 'closed': return closed(e.reason);
  }
}

// hello starts (or restarts, after a reconnect) the page: the bridge's
// last status of every server comes with it, in order with the events that
// follow, so the /mcp view takes statuses only from there and from
// mcp.status, never from an answer that may have overtaken a newer event.
// The conversation so far follows it (the bridge's transcript: the user's
// messages and the runs' events, shown as they were live), then the
// questions still waiting.
function hello(e) {
  const servers = e.servers;
  state.init = e.init || {};
  for (const id of [...state.asks.keys()]) removeAsk(id);
  clearLog();
  state.conversation = e.conversation || null;
  if (e.dropped) note('The beginning of this conversation is no longer kept: host web keeps its last part.');
  const caps = state.init.capabilities || {};
  $('model').textContent = caps.model ? 'model: ' + caps.model : 'no model configured';
  $('conn').textContent = 'connected';
  state.servers.clear();
  for (const s of servers || state.init.servers || []) state.servers.set(s.id, s);
  renderServers();
  const problems = $('problems');
  problems.replaceChildren();
  for (const p of state.init.problems || []) problems.append(el('p', { class: 'problem', text: p }));
}

function closed(reason) {
  const b = $('banner');
  b.textContent = 'The runtime has stopped: ' + (reason || '') + '. Restart host web.';
  b.hidden = false;
  $('send').disabled = true;
}

function notification(method, p) {
  switch (method) {
    case N.mcpStatus:
      if (!p.server) return;
      if (p.removed) state.servers.delete(p.server.id);
      else state.servers.set(p.server.id, p.server);
      return renderServers();
    case N.runStatus: return runStatus(p);
    case N.agentEvent: return agentEvent(p);
    case N.log: return note((p.level || 'info') + ': ' + (p.message || ''), 'log');
  }
  if (window.hostPrims && window.hostPrims.notification(method, p)) return;
  if (window.mcpApps) window.mcpApps.notification(method, p);
}

// ---- chat ----

// clearLog empties the transcript and forgets its runs and their apps.
function clearLog() {
  $('log').replaceChildren();
  state.runs.clear();
  state.activeRun = null;
  $('cancel').disabled = true;
  if (window.mcpApps && window.mcpApps.reset) window.mcpApps.reset();
}

// userTurn shows the user's message of a user event (every page gets it
// from the bridge, the one that sent it too): what a run.start sent (its
// prompt, the messages of the prompt it came from, its attachments), or an
// app's message the user agreed to send. A prompt's messages are the
// server's text: text only.
function userTurn(e) {
  const p = e.params || {};
  let node;
  if (e.app) {
    node = el('div', { class: 'msg user from-app' }, el('div', { class: 'app-label', text: 'from the app of ' + e.app.server + '/' + e.app.tool }), e.app.text || '');
  } else if (e.from || (p.messages || []).length) {
    node = el('div', { class: 'msg user from-prompt' }, el('div', { class: 'muted', text: 'from ' + (e.from || 'a prompt') }));
    for (const m of p.messages || []) {
      const c = m.content || {};
      node.append(el('div', { text: m.role + ': ' + (c.type === 'text' ? c.text : '[' + c.type + ' ' + (c.uri || c.mime_type || '') + ']') }));
    }
    if (p.prompt) node.append(el('div', { text: p.prompt }));
  } else {
    node = el('div', { class: 'msg user', text: p.prompt || '' });
  }
  for (const a of p.attach || []) node.append(el('div', { class: 'attached muted', text: 'attached ' + a.server + ':' + a.uri }));
  $('log').append(node);
  scrollLog();
}

function getRun(id) {
  let r = state.runs.get(id);
  if (r) return r;
  const body = el('div', { class: 'body' });
  const box = el('div', { class: 'msg assistant', 'data-run': id }, body);
  r = { id, box, body, text: null, textStep: -1, calls: new Map(), sawText: false };
  state.runs.set(id, r);
  $('log').append(box);
  return r;
}

function callCard(r, c) {
  let card = r.calls.get(c.id);
  if (card) return card;
  const name = c.server && c.tool ? c.server + '/' + c.tool : c.public_name || '?';
  const status = el('div', { class: 'call-status', text: 'called' });
  const result = el('div', { class: 'call-result' });
  const head = el('div', { class: 'call-head' }, el('span', { class: 'tool-name', text: name }),
    c.unknown ? el('span', { class: 'warn', text: ' (no such tool: the call is not made)' }) : null);
  const args = el('pre', { class: 'args', text: pretty(c.arguments || {}) });
  const node = el('div', { class: 'call', 'data-call': c.id || '' }, head, args, status, result);
  card = { node, status, result, call: c };
  r.calls.set(c.id, card);
  finishText(r);
  r.body.append(node);
  r.text = null;
  return card;
}

function agentEvent(p) {
  const r = getRun(p.run_id);
  switch (p.type) {
    case 'text_delta':
      addText(r, p.step, p.text || '');
      r.sawText = true;
      break;
    case 'tool_call':
      callCard(r, p.call || {});
      break;
    case 'permission': {
      const card = callCard(r, p.call || {});
      if (p.phase === 'asked') {
        card.status.textContent = 'waiting for your permission';
        card.status.className = 'call-status asked';
      } else if (p.decision === 'allow') {
        card.status.textContent = 'allowed' + (p.decided_by ? ' (' + p.decided_by + ')' : '');
        card.status.className = 'call-status allowed';
      } else {
        card.status.textContent = 'denied' + (p.decided_by ? ' (' + p.decided_by + ')' : '') + (p.reason ? ': ' + p.reason : '');
        card.status.className = 'call-status denied';
      }
      break;
    }
    case 'tool_result': {
      const card = callCard(r, p.call || {});
      renderResult(card.result, p.result || {});
      break;
    }
    case 'final':
      if (p.text && !r.sawText) addText(r, p.step, p.text);
      finishText(r);
      if (p.reason) r.body.append(el('div', { class: 'reason', text: p.reason }));
      runError(r, p.error);
      r.box.classList.add('done', 'status-' + (p.status || 'completed'));
      break;
    case 'error':
      runError(r, p.error || 'error');
      break;
  }
  if (window.mcpApps) window.mcpApps.agentEvent(p);
  scrollLog();
}

// runError shows why run r failed: the one place a run's error is
// written. The runtime says it up to three times (the error event, the
// final event, run.status): the run shows each message once, in one line
// after the rest of the run.
function runError(r, text) {
  if (!text) return;
  if (!r.error) r.error = el('div', { class: 'error' });
  const shown = r.error.textContent;
  if (!shown.split('\n').includes(text)) r.error.textContent = shown ? shown + '\n' + text : text;
  r.body.append(r.error);
}

function renderResult(node, res) {
  node.replaceChildren();
  if (res.is_error) node.classList.add('is-error');
  for (const b of res.content || []) {
    if (b.type === 'text') node.append(el('pre', { class: 'result-text', text: b.text || '' }));
    else if (b.type === 'image' && /^image\/(png|jpeg|gif|webp)$/.test(b.mime_type || '')) {
      node.append(el('img', { class: 'result-image', alt: 'image from the tool', src: 'data:' + b.mime_type + ';base64,' + (b.data || '') }));
    } else node.append(el('div', { class: 'result-other', text: '[' + b.type + '] ' + (b.uri || b.name || b.mime_type || '') }));
  }
  if (res.structured !== undefined && !(res.content || []).length) node.append(el('pre', { class: 'result-text', text: pretty(res.structured) }));
}

function runStatus(p) {
  const r = getRun(p.run_id);
  if (p.status === 'running') {
    state.activeRun = p.run_id;
    $('cancel').disabled = false;
    return;
  }
  r.box.classList.add('done');
  finishText(r);
  if (state.activeRun === p.run_id) {
    state.activeRun = null;
    $('cancel').disabled = true;
  }
  if (p.status === 'failed') runError(r, p.error);
}

async function send(prompt) {
  const attach = window.hostPrims ? window.hostPrims.take() : [];
  startRun(attach.length ? { prompt, attach } : { prompt });
}

// startRun starts a run with params; from names the prompt whose messages
// they hold. The user's turn shows when the bridge relays it (a user
// event, which every page gets, before the run's events).
async function startRun(params, from) {
  if (state.conversation) params.conversation = state.conversation;
  const start = from ? bindMethods((method, p) => call(method, p, from)).runStart : rpc.runStart;
  try {
    const res = await start(params);
    state.conversation = res.conversation || state.conversation;
  } catch (err) {
    // Without a model, name host web's own flags: the person ran host web.
    if (err.code === ERROR_CODES.no_model) note('No model is configured: stop host web (Ctrl-C) and start host web --model NAME (OpenAI-compatible) or host web --script FILE.', 'error');
    else note(err.message, 'error');
  }
}

// newConversation ends the conversation on the runtime (conversation.end:
// it forgets the history, cancels a run still going and removes the
// results kept for it) and empties the transcript, as host chat's /new;
// the bridge empties it in every page and forgets it (a cleared event).
async function newConversation() {
  const conv = state.conversation;
  state.conversation = null;
  clearLog();
  if (conv) await rpc.conversationEnd({ conversation: conv }).catch((err) => note(err.message, 'error'));
}

// ---- the runtime's questions ----

const { confirmCard, promptCard, openURLCard } = askCards({ el, answer });

function showAsk(e) {
  if (state.asks.has(e.id)) return;
  const p = e.params || {};
  let card;
  switch (UI_HANDLERS[e.method]) {
    case 'confirm': card = confirmCard(e.id, p); break;
    case 'prompt': card = promptCard(e.id, p); break;
    case 'openURL': card = openURLCard(e.id, p); break;
    case 'elicit': card = window.elicitCard(e.id, p); break;
    default:
      if (window.mcpApps && window.mcpApps.request(e)) return;
      answer(e.id, null, 'host web cannot answer ' + e.method);
      return;
  }
  card.dataset.ask = e.id;
  state.asks.set(e.id, card);
  state.askMethods.set(e.id, e.method);
  $('asks').append(card);
  // The focus stays where the person left it: a question never takes the
  // keyboard, so keys meant for the message box cannot answer it (answering
  // is a click, or a key on a button the person moved to themselves).
}

function removeAsk(id, reason) {
  const card = state.asks.get(id);
  if (!card) return;
  state.asks.delete(id);
  state.askMethods.delete(id);
  card.remove();
  if (!state.asks.size) $('ask-hint').hidden = true;
  if (reason) note('A question was withdrawn: ' + reason);
}

// ---- /mcp ----

function renderServers() {
  drawServers(state.servers, { el, rpc, note });
}

function showView(name) {
  $('view-chat').hidden = name !== 'chat';
  $('view-mcp').hidden = name !== 'mcp';
  $('tab-chat').classList.toggle('active', name === 'chat');
  $('tab-mcp').classList.toggle('active', name === 'mcp');
}

// ---- start ----

function start() {
  $('tab-chat').addEventListener('click', () => showView('chat'));
  $('tab-mcp').addEventListener('click', () => showView('mcp'));
  const input = $('prompt');
  const submit = () => {
    const text = input.value.trim();
    if (!text) return;
    if (text === '/mcp') { input.value = ''; return showView('mcp'); }
    if (state.asks.size) {
      // Enter in the message box never answers a question: the message
      // waits in the box until the question is answered with a click.
      $('ask-hint').hidden = false;
      return;
    }
    input.value = '';
    if (window.hostPrims && window.hostPrims.typed(text)) return;
    send(text);
  };
  $('prompt-form').addEventListener('submit', (ev) => { ev.preventDefault(); submit(); });
  input.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && !ev.shiftKey) { ev.preventDefault(); submit(); }
  });
  $('new-conversation').addEventListener('click', newConversation);
  $('cancel').addEventListener('click', () => {
    if (state.activeRun) rpc.runCancel({ run_id: state.activeRun }).catch((err) => note(err.message, 'error'));
  });
  const es = new EventSource('/api/events');
  es.onmessage = (m) => {
    try { handle(JSON.parse(m.data)); } catch (err) { note('bad event: ' + err.message, 'error'); }
  };
  es.onerror = () => { $('conn').textContent = 'reconnecting…'; };
  es.onopen = () => { $('conn').textContent = 'connected'; };
}

window.hostWeb = { rpc, notifications: N, answer, el, note, getRun, renderResult, pretty, safeURL, startRun };
start();
