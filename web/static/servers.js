// host web: the /mcp view, a row per server with its status and the
// buttons that act on it (each a protocol request through rpc, naming the
// server "server"; the new status arrives as mcp.status). A row says what
// host mcp get says of the server: its sandbox and policy, its last error
// and, on a line of its own, the sandbox's hint; its Details button adds
// what only mcp.get carries (the command or URL, the protections, the
// stderr and log tails), asked only then: mcp.get starts a stopped server.
// Every server string goes in as text only.

const $ = (id) => document.getElementById(id);

// details holds the mcp.get answer (or its error) of each server whose
// details are open; drawn is the last drawServers call, drawn again when
// an answer arrives.
const details = new Map();
let drawn = null;

// tailLines is how many last lines of a server's stderr or log are shown,
// as host chat's /mcp <id> does.
const tailLines = 8;

// hintStart is how the runtime's hint about a refusal of a server's
// sandbox begins (runtime/sandbox's Denied: the refused path or address and
// the grant that allows it), which it appends last to the server's error.
const hintStart = 'the sandbox denied ';

// splitHint splits a server's last error into the error and the sandbox's
// hint, so the hint gets a line of its own; the hint is "" when the
// sandbox refused nothing the error names.
function splitHint(s) {
  const e = s.last_error || '';
  if (!s.sandbox) return [e, ''];
  const i = e.lastIndexOf(hintStart);
  if (i < 0) return [e, ''];
  return [e.slice(0, i).replace(/[\s;:]+$/, ''), e.slice(i)];
}

// sandboxLine is a server's sandbox in one line, as host mcp get says it:
// its state (and mechanism), then what its policy allows.
function sandboxLine(sb) {
  const state = (sb.status || sb.state || '') + (sb.detail ? ' (' + sb.detail + ')' : '');
  return 'sandbox: ' + state + (sb.summary ? '; ' + sb.summary : '');
}

function tail(text) {
  return text.replace(/\n+$/, '').split('\n').slice(-tailLines).join('\n');
}

// detailLines are the lines of a server's mcp.get answer d.
function detailLines(d, el) {
  if (d.error) return [el('div', { class: 'error', text: 'details: ' + d.error })];
  const out = [];
  if (d.command) out.push(el('div', { 'data-detail': 'command', text: 'command: ' + d.command }));
  if (d.url) out.push(el('div', { 'data-detail': 'command', text: 'url: ' + (d.display_url || d.url) }));
  for (const p of (d.sandbox && d.sandbox.protections) || []) out.push(el('div', { class: 'protection', text: 'protection: ' + p }));
  if (d.stderr) out.push(el('div', { class: 'label', text: 'stderr (tail)' }), el('pre', { 'data-detail': 'stderr', text: tail(d.stderr) }));
  if (d.server_log) out.push(el('div', { class: 'label', text: 'server log (tail)' }), el('pre', { 'data-detail': 'server-log', text: tail(d.server_log) }));
  return out;
}

// toggleDetails opens a server's details (asking mcp.get) or closes them.
async function toggleDetails(id, rpc) {
  if (details.has(id)) {
    details.delete(id);
    return drawAgain();
  }
  const asked = { loading: true };
  details.set(id, asked);
  drawAgain();
  let got;
  try {
    got = (await rpc.mcpGet({ server: id })).server || {};
  } catch (err) {
    got = { error: err.message };
  }
  if (details.get(id) !== asked) return; // closed (or asked again) meanwhile
  details.set(id, got);
  drawAgain();
}

function drawAgain() {
  if (drawn) drawServers(...drawn);
}

// drawServers draws servers (id -> status) with the page's el, rpc and note.
export function drawServers(servers, { el, rpc, note }) {
  drawn = [servers, { el, rpc, note }];
  const body = document.querySelector('#servers tbody');
  body.replaceChildren();
  const counts = {};
  const ids = [...servers.keys()].sort();
  for (const id of ids) {
    const s = servers.get(id);
    counts[s.status] = (counts[s.status] || 0) + 1;
    const cell = el('td', { class: 'details' });
    if (s.server_name) cell.append(el('div', { text: s.server_name + (s.server_version ? ' ' + s.server_version : '') }));
    if (s.auth) cell.append(el('div', { text: 'auth: ' + (s.auth.detail || (s.auth.logged_in ? 'logged in' : 'not logged in')) }));
    if (s.cached) cell.append(el('div', { text: 'not running: ' + s.tools + ' tools kept from its last run; its next use starts it' }));
    if (s.sandbox) cell.append(el('div', { class: 'sandbox', 'data-detail': 'sandbox', text: sandboxLine(s.sandbox) }));
    const [lastError, hint] = splitHint(s);
    if (lastError) cell.append(el('div', { class: 'error', 'data-detail': 'last-error', text: lastError }));
    if (hint) cell.append(el('div', { class: 'sandbox-hint', 'data-detail': 'sandbox-hint', text: hint }));
    for (const w of s.warnings || []) cell.append(el('div', { class: 'warn', text: w }));
    if (s.approval && s.status === 'approval_required') {
      cell.append(el('div', { class: 'label', text: 'defined in ' + (s.approval.file || 'a project file') + ':' }),
        el('pre', { class: 'fields', text: (s.approval.fields || []).join('\n') }));
    }
    const d = details.get(id);
    if (d && d.loading) cell.append(el('div', { class: 'muted', text: 'asking the server…' }));
    else if (d) cell.append(...detailLines(d, el));
    const actions = el('td', { class: 'actions' });
    actions.append(el('button', { type: 'button', class: 'details', text: d ? 'Hide details' : 'Details', onclick: () => toggleDetails(id, rpc) }));
    const act = (label, send, cls) => actions.append(el('button', {
      type: 'button', class: cls, text: label,
      onclick: async (ev) => {
        ev.target.disabled = true;
        try {
          await send(); // the new status arrives as mcp.status
        } catch (err) {
          note(id + ': ' + err.message, 'error');
        } finally {
          ev.target.disabled = false;
        }
      },
    }));
    if (s.status === 'approval_required' && s.approval) {
      act('Approve', () => rpc.mcpApprove({ server: id, approve: true, digest: s.approval.digest }), 'approve');
      act('Deny', () => rpc.mcpApprove({ server: id, approve: false, digest: s.approval.digest }), 'deny');
    }
    if (s.status === 'auth_required' || (s.auth && !s.auth.logged_in)) act('Log in', () => rpc.mcpLogin({ server: id }), 'login');
    if (s.auth && s.auth.logged_in) act('Log out', () => rpc.mcpLogout({ server: id }), 'logout');
    if (s.enabled && s.status !== 'approval_required') act('Reconnect', () => rpc.mcpReconnect({ server: id }), 'reconnect');
    if (s.enabled) act('Disable', () => rpc.mcpDisable({ server: id }), 'disable');
    else act('Enable', () => rpc.mcpEnable({ server: id }), 'enable');
    body.append(el('tr', { 'data-server': id },
      el('td', { class: 'id', text: id }),
      el('td', { class: 'state state-' + s.status, text: s.status }),
      el('td', { text: s.transport || '' }),
      el('td', { text: s.source || '' }),
      el('td', { text: String(s.tools || 0) }),
      cell, actions));
  }
  $('server-summary').textContent = '(' + Object.entries(counts).map(([k, v]) => v + ' ' + k).join(', ') + ')';
}
