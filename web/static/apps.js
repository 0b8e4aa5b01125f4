// host web: MCP Apps (SEP-1865, the io.modelcontextprotocol/ui extension).
//
// A tool call whose tool has an app carries an app instance (call.app). The
// page reads the app's HTML with app.read_resource, hands it to the bridge
// (POST /api/frame), which serves it from a second loopback origin under a
// CSP built from what the app declared, and shows it in an iframe sandboxed
// with allow-scripts only: an opaque origin that can read neither this page
// nor another app. The page is then the app's host on the ext-apps
// postMessage JSON-RPC channel: ui/initialize, tool input and result
// notifications, and the app's requests, each forwarded to the runtime's
// app.* method (tools/call -> app.call_tool, resources/read ->
// app.read_resource, ui/message -> app.message, ui/open-link ->
// app.open_link), where the permission gate and the user's consent apply.
'use strict';

(() => {
  const H = window.hostWeb;
  const PROTOCOL_VERSION = '2026-01-26';
  const MAX_HEIGHT = 2000;
  const apps = new Map(); // app id -> instance

  // mcpContent turns a protocol content block into MCP's shape.
  function mcpContent(c) {
    const out = { type: c.type };
    if (c.text !== undefined) out.text = c.text;
    if (c.data !== undefined) out.data = c.data;
    if (c.mime_type) out.mimeType = c.mime_type;
    if (c.uri) out.uri = c.uri;
    if (c.name) out.name = c.name;
    if (c.title) out.title = c.title;
    if (c.type === 'resource') {
      out.resource = { uri: c.uri || '', mimeType: c.mime_type, text: c.text, blob: c.data };
      delete out.text; delete out.data; delete out.uri;
    }
    return out;
  }

  function mcpResult(r) {
    const out = { content: (r.content || []).map(mcpContent) };
    if (r.structured !== undefined && r.structured !== null) out.structuredContent = r.structured;
    if (r.is_error) out.isError = true;
    return out;
  }

  // protoContent turns an app's MCP content block into the protocol's.
  function protoContent(c) {
    return { type: c.type, text: c.text, data: c.data, mime_type: c.mimeType, uri: c.uri, name: c.name, title: c.title };
  }

  // cspForApp is the declared CSP in the extension's own (camelCase) shape.
  function cspForApp(c) {
    if (!c) return {};
    const out = {};
    if (c.connect_domains) out.connectDomains = c.connect_domains;
    if (c.resource_domains) out.resourceDomains = c.resource_domains;
    if (c.frame_domains) out.frameDomains = c.frame_domains;
    if (c.base_uri_domains) out.baseUriDomains = c.base_uri_domains;
    return out;
  }

  function post(inst, msg) {
    // The frame's origin is opaque (sandboxed without allow-same-origin),
    // so no target origin can name it; the window itself is the target.
    if (inst.frame && inst.frame.contentWindow) inst.frame.contentWindow.postMessage(msg, '*');
  }

  function reply(inst, id, result) { post(inst, { jsonrpc: '2.0', id, result: result || {} }); }
  function replyError(inst, id, code, message) { post(inst, { jsonrpc: '2.0', id, error: { code, message } }); }
  function notify(inst, method, params) { post(inst, { jsonrpc: '2.0', method, params: params || {} }); }

  async function registerFrame(html, csp) {
    const r = await fetch('/api/frame', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ html, csp }),
    });
    if (!r.ok) throw new Error('HTTP ' + r.status);
    const a = await r.json();
    if (a.error) throw new Error(a.error);
    return a;
  }

  async function open(app, call, container) {
    if (apps.has(app.id)) return;
    const inst = { app, call, frame: null, ready: false, input: call.arguments || {}, result: null, csp: null };
    apps.set(app.id, inst);
    const box = H.el('div', { class: 'app', 'data-app': app.id },
      H.el('div', { class: 'app-label', text: 'app of ' + app.server + '/' + app.tool + ' (' + app.resource_uri + '), sandboxed' }));
    container.append(box);
    try {
      const res = await H.rpc.appReadResource({ app_id: app.id });
      const c = (res.contents || [])[0];
      if (!c || typeof c.text !== 'string') throw new Error('the app resource holds no HTML');
      inst.csp = (c.ui && c.ui.csp) || null;
      try {
        const g = await H.rpc.mcpGet({ server: app.server });
        const t = ((g.server && g.server.tool_list) || []).find((x) => x.tool === app.tool);
        if (t) inst.tool = { name: t.tool, title: t.title, description: t.description, inputSchema: t.input_schema || { type: 'object' } };
      } catch (_) { /* the context then names the tool only */ }
      const reg = await registerFrame(c.text, inst.csp);
      if (reg.ignored && reg.ignored.length) box.append(H.el('div', { class: 'warn', text: 'declared origins left out of the frame policy: ' + reg.ignored.join(', ') }));
      const frame = H.el('iframe', {
        class: 'app-frame', sandbox: 'allow-scripts', referrerpolicy: 'no-referrer',
        title: 'app of ' + app.server + '/' + app.tool, src: reg.url,
      });
      inst.frame = frame;
      box.append(frame);
    } catch (err) {
      box.append(H.el('div', { class: 'error', text: 'the app could not be shown: ' + err.message }));
    }
  }

  function hostContext(inst) {
    return {
      toolInfo: { id: inst.call.id, tool: inst.tool || { name: inst.app.tool, inputSchema: { type: 'object' } } },
      theme: 'light',
      displayMode: 'inline',
      availableDisplayModes: ['inline'],
      platform: 'web',
      locale: navigator.language,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      userAgent: 'mcp-host web',
      containerDimensions: { maxHeight: MAX_HEIGHT, width: inst.frame ? inst.frame.clientWidth : 600 },
    };
  }

  function started(inst) {
    inst.ready = true;
    notify(inst, 'ui/notifications/tool-input', { arguments: inst.input });
    if (inst.result) notify(inst, 'ui/notifications/tool-result', mcpResult(inst.result));
    else if (inst.cancelled) notify(inst, 'ui/notifications/tool-cancelled', { reason: inst.cancelled });
  }

  // cancel tells an app whose call will not give a result (denied, or its
  // run ended without one) why, as the spec requires of hosts.
  function cancel(inst, reason) {
    if (inst.result || inst.cancelled) return;
    inst.cancelled = reason || 'cancelled';
    if (inst.ready) notify(inst, 'ui/notifications/tool-cancelled', { reason: inst.cancelled });
  }

  // forward runs an app request through a runtime method (send, one of
  // H.rpc's); fn shapes the answer for the app.
  async function forward(inst, id, send, fn) {
    try {
      reply(inst, id, fn(await send()));
    } catch (err) {
      replyError(inst, id, typeof err.code === 'number' ? err.code : -32000, err.message);
    }
  }

  function onRequest(inst, m) {
    const p = m.params || {};
    const app_id = inst.app.id;
    switch (m.method) {
      case 'ui/initialize':
        return reply(inst, m.id, {
          protocolVersion: PROTOCOL_VERSION,
          hostInfo: { name: 'mcp-host web', version: '1' },
          hostCapabilities: {
            openLinks: {}, serverTools: {}, serverResources: {}, logging: {},
            message: { text: {} },
            sandbox: { permissions: {}, csp: cspForApp(inst.csp) },
          },
          hostContext: hostContext(inst),
        });
      case 'ping':
        return reply(inst, m.id, {});
      case 'tools/call':
        return forward(inst, m.id, () => H.rpc.appCallTool({ app_id, tool: p.name, arguments: p.arguments || {} }), (r) => mcpResult(r.result || {}));
      case 'resources/read':
        return forward(inst, m.id, () => H.rpc.appReadResource({ app_id, uri: p.uri }), (r) => ({
          contents: (r.contents || []).map((c) => ({ uri: c.uri, mimeType: c.mime_type, text: c.text, blob: c.blob })),
        }));
      case 'ui/message':
        return H.rpc.appMessage({ app_id, role: p.role, content: (p.content || []).map(protoContent) })
          .then(() => reply(inst, m.id, {}), (err) => reply(inst, m.id, { isError: true, message: err.message }));
      case 'ui/open-link':
        return H.rpc.appOpenLink({ app_id, url: p.url })
          .then((r) => reply(inst, m.id, r && r.opened ? {} : { isError: true }), (err) => reply(inst, m.id, { isError: true, message: err.message }));
      case 'ui/request-display-mode':
        return reply(inst, m.id, { mode: 'inline' });
      default:
        return replyError(inst, m.id, -32601, 'host web does not support ' + m.method);
    }
  }

  function onNotification(inst, m) {
    const p = m.params || {};
    switch (m.method) {
      case 'ui/notifications/initialized':
        return started(inst);
      case 'ui/notifications/size-changed':
        if (typeof p.height === 'number' && p.height > 0) inst.frame.style.height = Math.min(Math.ceil(p.height), MAX_HEIGHT) + 'px';
        return;
    }
  }

  window.addEventListener('message', (ev) => {
    let inst = null;
    for (const i of apps.values()) if (i.frame && ev.source === i.frame.contentWindow) inst = i;
    if (!inst) return; // not one of our frames: ignored
    const m = ev.data;
    if (!m || typeof m !== 'object' || m.jsonrpc !== '2.0') return;
    if (typeof m.method === 'string' && m.id !== undefined && m.id !== null) onRequest(inst, m);
    else if (typeof m.method === 'string') onNotification(inst, m);
  });

  window.mcpApps = {
    agentEvent(p) {
      if (p.type === 'final' && p.status !== 'completed') {
        for (const inst of apps.values()) if (inst.app.run_id === p.run_id) cancel(inst, p.reason || 'the run ended ' + p.status);
      }
      const app = p.call && p.call.app;
      if (!app) return;
      if (p.type === 'permission' && p.phase === 'decided' && p.decision !== 'allow') {
        const inst = apps.get(app.id);
        if (inst) cancel(inst, 'the call was denied' + (p.reason ? ': ' + p.reason : ''));
        return;
      }
      if (p.type === 'tool_call') {
        const card = H.getRun(p.run_id).calls.get(p.call.id);
        if (card) open(app, p.call, card.node);
      } else if (p.type === 'tool_result') {
        if (!apps.has(app.id)) {
          const card = H.getRun(p.run_id).calls.get(p.call.id);
          if (card) open(app, p.call, card.node);
        }
        const inst = apps.get(app.id);
        // A denied call's result only says so: the app was told it was
        // cancelled instead.
        if (!inst || inst.cancelled) return;
        inst.result = p.result || {};
        if (inst.ready) notify(inst, 'ui/notifications/tool-result', mcpResult(inst.result));
      }
    },
    notification() {},
    request() { return false; },
    // reset forgets the apps: the transcript they were in was emptied
    // (a new conversation, or a hello that shows it again).
    reset() { apps.clear(); },
  };
})();
