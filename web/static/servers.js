// host web: the /mcp view, a row per server with its status and the
// buttons that act on it (each a protocol request through rpc, naming the
// server "server"; the new status arrives as mcp.status). Every server
// string goes in as text only.

const $ = (id) => document.getElementById(id);

// drawServers draws servers (id -> status) with the page's el, rpc and note.
export function drawServers(servers, { el, rpc, note }) {
  const body = document.querySelector('#servers tbody');
  body.replaceChildren();
  const counts = {};
  const ids = [...servers.keys()].sort();
  for (const id of ids) {
    const s = servers.get(id);
    counts[s.status] = (counts[s.status] || 0) + 1;
    const details = el('td', { class: 'details' });
    if (s.server_name) details.append(el('div', { text: s.server_name + (s.server_version ? ' ' + s.server_version : '') }));
    if (s.auth) details.append(el('div', { text: 'auth: ' + (s.auth.detail || (s.auth.logged_in ? 'logged in' : 'not logged in')) }));
    if (s.cached) details.append(el('div', { text: 'not running: ' + s.tools + ' tools kept from its last run; its next use starts it' }));
    if (s.last_error) details.append(el('div', { class: 'error', text: s.last_error }));
    for (const w of s.warnings || []) details.append(el('div', { class: 'warn', text: w }));
    if (s.approval && s.status === 'approval_required') {
      details.append(el('div', { class: 'label', text: 'defined in ' + (s.approval.file || 'a project file') + ':' }),
        el('pre', { class: 'fields', text: (s.approval.fields || []).join('\n') }));
    }
    const actions = el('td', { class: 'actions' });
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
      details, actions));
  }
  $('server-summary').textContent = '(' + Object.entries(counts).map(([k, v]) => v + ' ' + k).join(', ') + ')';
}
