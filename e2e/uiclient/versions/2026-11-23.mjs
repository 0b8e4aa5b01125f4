// The doc-written UI client as it was when protocol 2026-11-23 was the newest
// (git history: e2e/uiclient/uiclient.mjs), kept unchanged to run against
// today's host serve, which must still serve its version (PROTOCOL.md,
// "Versions"; e2e/uiclient_versions_test.go).
// uiclient.mjs is a UI for mcp-host written from protocol/PROTOCOL.md
// alone, as a new UI author would: it starts `host serve` with a scripted
// model and a config of its own, and runs the main flows of the protocol
// (handshake, statuses, tools, a streamed run, a run with a tool call that
// is allowed, one that is denied, a cancelled run, a confirm that times
// out, direct tool calls, an allow rule, resource links, an elicitation
// answered twice, error answers, disable/enable/reconnect, shutdown),
// checking every message
// against what the doc promises. Any deviation exits 1 with a message that
// says what the doc promised and what came.
//
// Usage: node uiclient.mjs HOST_BINARY SERVER_COMMAND [SERVER_ARGS...]
//
// SERVER_COMMAND runs @modelcontextprotocol/server-everything over stdio
// (for instance: node .../server-everything/dist/index.js stdio).
//
// UICLIENT_TRANSCRIPT=FILE writes every protocol line of a passing run to
// FILE (the doc's examples are taken from such runs). Only Node's standard
// library is used.

import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [hostBin, ...serverCmd] = process.argv.slice(2);
if (!hostBin || serverCmd.length === 0) {
  console.error("usage: node uiclient.mjs HOST_BINARY SERVER_COMMAND [SERVER_ARGS...]");
  process.exit(2);
}

const WAIT_MS = 60_000;
const CONFIRM_TIMEOUT_MS = 8_000; // --confirm-timeout: the UI answers every other confirm at once
const dir = mkdtempSync(join(tmpdir(), "mcp-host-uiclient-"));
let child;
let failed = false;

// ---- failure and logging ----

const transcript = []; // every line both ways, for the failure report

function fail(msg) {
  if (failed) return;
  failed = true;
  console.error(`uiclient: FAIL: ${msg}`);
  console.error("uiclient: the last protocol lines (> UI to runtime, < runtime to UI):");
  for (const l of transcript.slice(-25)) console.error("  " + l.slice(0, 400));
  if (child) child.kill("SIGKILL");
  try { rmSync(dir, { recursive: true, force: true }); } catch {}
  process.exit(1);
}

function check(cond, msg) {
  if (!cond) fail(msg);
}

function step(name) {
  console.log(`uiclient: ${name}`);
}

// ---- the JSON-RPC peer: one JSON object per line both ways ----

let nextID = 1;
const pending = new Map(); // id -> {resolve, method}
const received = []; // every message from the runtime, in order: {seq, msg}
let waiters = []; // {pred, resolve}
let seq = 0;

function send(obj) {
  const line = JSON.stringify(obj);
  transcript.push("> " + line);
  child.stdin.write(line + "\n");
}

// request sends a request and resolves with the whole answer object
// ({result} or {error}) and the sequence number it arrived at.
function request(method, params) {
  const id = nextID++;
  const msg = { jsonrpc: "2.0", id, method };
  if (params !== undefined) msg.params = params;
  return new Promise((resolve) => {
    const timer = setTimeout(() => fail(`${method} (id ${id}) got no answer within ${WAIT_MS / 1000}s`), WAIT_MS);
    pending.set(id, { method, resolve: (ans) => { clearTimeout(timer); resolve(ans); } });
    send(msg);
  });
}

async function call(method, params) {
  const ans = await request(method, params);
  check(!ans.error, `${method} failed: ${JSON.stringify(ans.error)}`);
  return ans.result;
}

function respond(id, result) {
  send({ jsonrpc: "2.0", id, result });
}

function onLine(line) {
  transcript.push("< " + line);
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    fail(`stdout carries protocol messages only (PROTOCOL.md, Transport), but this line is not JSON: ${line.slice(0, 200)}`);
    return;
  }
  check(msg.jsonrpc === "2.0", `a message without "jsonrpc": "2.0": ${line.slice(0, 200)}`);
  if (msg.method === undefined) {
    // An answer to one of our requests.
    const p = pending.get(msg.id);
    check(p, `an answer to no request of ours (id ${JSON.stringify(msg.id)}): ${line.slice(0, 200)}`);
    pending.delete(msg.id);
    p.resolve({ ...msg, seq: ++seq });
    return;
  }
  const entry = { seq: ++seq, msg };
  received.push(entry);
  waiters = waiters.filter((w) => {
    if (w.pred(msg)) {
      w.resolve(entry);
      return false;
    }
    return true;
  });
}

// waitFor resolves with the first message from the runtime (a notification
// or a request) after seq `after` that pred accepts.
function waitFor(what, pred, after = 0, ms = WAIT_MS) {
  const have = received.find((e) => e.seq > after && pred(e.msg));
  if (have) return Promise.resolve(have);
  return new Promise((resolve) => {
    const timer = setTimeout(() => fail(`waited ${ms / 1000}s for ${what}`), ms);
    // Messages not yet received all come after `after`.
    waiters.push({ pred, resolve: (e) => { clearTimeout(timer); resolve(e); } });
  });
}

const isNote = (method, f = () => true) => (m) => m.method === method && m.id === undefined && f(m.params);
const isReq = (method, f = () => true) => (m) => m.method === method && m.id !== undefined && f(m.params);

function runMsgs(runID) {
  return received.filter((e) => (e.msg.method === "agent.event" || e.msg.method === "run.status") && e.msg.params.run_id === runID);
}

// ---- the flows ----

function writeFixtures() {
  // The config format: "Configuration is read as for every host command";
  // PROTOCOL.md's "Building a UI" shows the file.
  const config = join(dir, "config.json");
  writeFileSync(config, JSON.stringify({
    version: 1,
    mcp: { servers: { everything: { transport: "stdio", command: serverCmd[0], args: serverCmd.slice(1) } } },
  }));
  // The scripted model (PROTOCOL.md, "The scripted model"): a queue per
  // run, chosen by the prompt; tools named server/tool.
  const script = join(dir, "script.json");
  writeFileSync(script, JSON.stringify({
    runs: [
      { prompt_contains: "stream", steps: [{ text: "Hello from the scripted model, word by word." }] },
      {
        prompt_contains: "echo",
        steps: [
          { calls: [{ name: "everything/echo", args: { message: "hi from the UI" } }] },
          { when_result_contains: "Echo: hi from the UI", text: "The server echoed it." },
          { text: "The echo did not go through." },
        ],
      },
      {
        prompt_contains: "sum",
        steps: [
          { calls: [{ name: "everything/get-sum", args: { a: 2, b: 3 } }] },
          { text: "The sum did not come back." },
        ],
      },
    ],
  }));
  return { config, script };
}

async function handshake(config) {
  step("initialize");
  const init = await call("initialize", {
    protocol_version: "2026-11-23",
    client_info: { name: "uiclient.mjs", version: "1" },
    capabilities: { confirm: true, elicit: true },
  });
  check(typeof init.protocol_version === "string" && init.protocol_version !== "", `initialize: no protocol_version: ${JSON.stringify(init)}`);
  check(init.server_info && init.server_info.name === "mcp-host", `initialize: server_info.name is not mcp-host: ${JSON.stringify(init.server_info)}`);
  check(init.capabilities && init.capabilities.runs === true, `initialize: capabilities.runs is not true with --script: ${JSON.stringify(init.capabilities)}`);
  check(Array.isArray(init.servers), `initialize: servers is not a list`);
  const ev = init.servers.find((s) => s.id === "everything");
  check(ev, `initialize: the snapshot lacks server everything: ${JSON.stringify(init.servers)}`);
  check(ev.transport === "stdio" && ev.source === "global" && ev.enabled === true, `initialize: everything is not stdio/global/enabled: ${JSON.stringify(ev)}`);
  check(["connecting", "ready"].includes(ev.state), `initialize: everything starts in state ${ev.state}`);
  check(Array.isArray(init.config_files) && init.config_files.includes(config), `initialize: config_files ${JSON.stringify(init.config_files)} lacks ${config}`);
  check(init.problems === undefined || (Array.isArray(init.problems) && init.problems.length === 0), `initialize: problems with a valid config: ${JSON.stringify(init.problems)}`);
  if (ev.state !== "ready") {
    step("wait for mcp.status ready");
    const st = await waitFor("mcp.status of everything ready", isNote("mcp.status", (p) => p.server.id === "everything" && p.server.state === "ready"));
    check(st.msg.params.server.tools > 0, `a ready status with no tools: ${JSON.stringify(st.msg.params)}`);
  }
}

async function lists() {
  step("mcp.list, mcp.get, tools.list");
  const list = await call("mcp.list");
  const ev = list.servers.find((s) => s.id === "everything");
  check(ev && ev.state === "ready" && ev.tools > 0 && ev.server_name, `mcp.list: everything is not ready with tools and a server_name: ${JSON.stringify(ev)}`);
  const got = await call("mcp.get", { id: "everything" });
  check(got.server && Array.isArray(got.server.tool_list) && got.server.tool_list.length === ev.tools, `mcp.get: tool_list does not hold the ${ev.tools} tools: ${JSON.stringify(got.server && got.server.tool_list && got.server.tool_list.length)}`);
  const tools = await call("tools.list", { server: "everything" });
  check(tools.tools.length === ev.tools, `tools.list {server}: ${tools.tools.length} tools, mcp.list says ${ev.tools}`);
  const byTool = Object.fromEntries(tools.tools.map((t) => [t.tool, t]));
  for (const name of ["echo", "get-sum"]) {
    const t = byTool[name];
    check(t && t.server === "everything" && /^mcp_everything_/.test(t.public_name), `tools.list: no tool ${name} of everything with a public_name mcp_everything_…: ${JSON.stringify(t)}`);
    check(t.annotations === undefined || t.annotations.untrusted === true, `tools.list: ${name}'s annotations are not marked untrusted: ${JSON.stringify(t.annotations)}`);
  }
  check(tools.problems === undefined || Array.isArray(tools.problems), `tools.list: problems is not a list`);
  const all = await call("tools.list");
  const local = all.tools.filter((t) => !t.server);
  check(all.tools.length === tools.tools.length + local.length, `tools.list without server: ${all.tools.length} tools, want everything's ${tools.tools.length} and the local ones`);
  for (const t of local) {
    check(t.public_name && !t.tool && t.description, `tools.list: a local tool has a tool name, or no public_name or description: ${JSON.stringify(t)}`);
  }
  return byTool;
}

async function errors() {
  step("error answers");
  let ans = await request("mcp.get");
  check(ans.error && ans.error.code === -32602 && ans.error.data && ans.error.data.kind === "invalid_params" && ans.error.data.field === "id",
    `mcp.get without params: want -32602 with data {kind: invalid_params, field: id}, got ${JSON.stringify(ans)}`);
  ans = await request("mcp.get", { id: "nope" });
  check(ans.error && ans.error.code === -32002 && ans.error.data.kind === "unknown_server" && ans.error.data.server === "nope",
    `mcp.get of an unknown id: want -32002 unknown_server, got ${JSON.stringify(ans)}`);
  ans = await request("no.such.method", {});
  check(ans.error && ans.error.code === -32601, `an unknown method: want -32601, got ${JSON.stringify(ans)}`);
  ans = await request("run.cancel", { run_id: "r999" });
  check(ans.error && ans.error.code === -32005, `run.cancel of no run: want -32005, got ${JSON.stringify(ans)}`);
}

// startRun starts a run and checks that its answer comes before any of its
// events and that running is its first status.
async function startRun(prompt) {
  const ans = await request("run.start", { prompt });
  check(!ans.error, `run.start ${prompt}: ${JSON.stringify(ans.error)}`);
  const { run_id: runID, conversation } = ans.result;
  check(runID && conversation, `run.start: no run_id or conversation: ${JSON.stringify(ans.result)}`);
  const first = await waitFor(`the first run.status of ${runID}`, isNote("run.status", (p) => p.run_id === runID));
  check(first.msg.params.status === "running", `run ${runID}: first run.status is ${first.msg.params.status}, not running`);
  const early = runMsgs(runID).filter((e) => e.seq < ans.seq);
  check(early.length === 0, `run ${runID}: an event came before the run.start answer: ${JSON.stringify(early[0] && early[0].msg)}`);
  return { runID, after: ans.seq };
}

// endRun waits for the run's final run.status and checks the one final
// agent.event that comes before it.
async function endRun(runID, status) {
  const end = await waitFor(`the final run.status of ${runID}`, isNote("run.status", (p) => p.run_id === runID && p.status !== "running"));
  const st = end.msg.params;
  check(st.status === status, `run ${runID} ended ${st.status}, want ${status}: ${JSON.stringify(st)}`);
  const events = runMsgs(runID).filter((e) => e.msg.method === "agent.event");
  const finals = events.filter((e) => e.msg.params.type === "final");
  check(finals.length === 1, `run ${runID}: ${finals.length} final agent.events, the doc promises exactly one`);
  const last = events[events.length - 1];
  check(last.msg.params.type === "final" && last.seq < end.seq, `run ${runID}: the final event is not the last agent.event before the final run.status`);
  check(finals[0].msg.params.status === status, `run ${runID}: final event status ${finals[0].msg.params.status}, want ${status}`);
  const afterEnd = runMsgs(runID).filter((e) => e.seq > end.seq);
  check(afterEnd.length === 0, `run ${runID}: a message after its final run.status: ${JSON.stringify(afterEnd[0] && afterEnd[0].msg)}`);
  return { st, final: finals[0].msg.params, events: events.map((e) => e.msg.params) };
}

async function streamedRun() {
  step("run: a streamed answer");
  const { runID } = await startRun("stream me an answer");
  const { st, final, events } = await endRun(runID, "completed");
  const want = "Hello from the scripted model, word by word.";
  const deltas = events.filter((e) => e.type === "text_delta");
  check(deltas.length > 1, `run ${runID}: the answer came in ${deltas.length} text_delta events, want it streamed in pieces`);
  check(deltas.map((d) => d.text).join("") === want, `run ${runID}: the text deltas make ${JSON.stringify(deltas.map((d) => d.text).join(""))}, want ${JSON.stringify(want)}`);
  check(final.text === want && st.text === want, `run ${runID}: final text ${JSON.stringify(final.text)} / run.status text ${JSON.stringify(st.text)}, want ${JSON.stringify(want)}`);
}

// confirmOf waits for the ui.confirm.request of a run's tool call and
// checks it against the call's tool_call and permission events.
async function confirmOf(runID, after, tool) {
  const req = await waitFor(`ui.confirm.request of run ${runID}`, isReq("ui.confirm.request", (p) => p.run_id === runID), after);
  const p = req.msg.params;
  check(p.kind === "tool_call" && p.tool && p.tool.server === "everything" && p.tool.tool === tool,
    `confirm of run ${runID}: want kind tool_call for everything/${tool}: ${JSON.stringify(p)}`);
  check(Array.isArray(p.options) && ["allow_once", "deny"].every((o) => p.options.includes(o)), `confirm: options ${JSON.stringify(p.options)}`);
  check(p.timeout_ms > 0, `confirm: no timeout_ms`);
  const events = runMsgs(runID).filter((e) => e.msg.method === "agent.event");
  const call = events.find((e) => e.msg.params.type === "tool_call" && e.msg.params.call.id === p.call_id);
  check(call && call.seq < req.seq, `confirm names call_id ${p.call_id}, but no tool_call event with that id came before it`);
  check(call.msg.params.call.server === "everything" && call.msg.params.call.tool === tool && call.msg.params.call.public_name === p.tool.public_name,
    `tool_call event's origin does not match the confirm: ${JSON.stringify(call.msg.params.call)}`);
  const asked = events.find((e) => e.msg.params.type === "permission" && e.msg.params.phase === "asked" && e.msg.params.call.id === p.call_id);
  check(asked && asked.seq < req.seq, `no permission asked event for call ${p.call_id} before its confirm`);
  return req;
}

function decidedOf(runID, callID) {
  return waitFor(`permission decided for call ${callID}`, isNote("agent.event", (p) => p.run_id === runID && p.type === "permission" && p.phase === "decided" && p.call.id === callID));
}

async function allowedRun() {
  step("run: a tool call the user allows");
  const { runID, after } = await startRun("please echo this");
  const req = await confirmOf(runID, after, "echo");
  respond(req.msg.id, { answer: "allow_once" });
  const { final, events } = await endRun(runID, "completed");
  const callID = req.msg.params.call_id;
  const decided = events.find((e) => e.type === "permission" && e.phase === "decided" && e.call.id === callID);
  check(decided && decided.decision === "allow" && decided.decided_by === "user", `decided event: want allow by user: ${JSON.stringify(decided)}`);
  const result = events.find((e) => e.type === "tool_result" && e.call.id === callID);
  check(result && result.result && !result.result.is_error && result.result.content.some((c) => c.type === "text" && c.text.includes("Echo: hi from the UI")),
    `tool_result: want the echo: ${JSON.stringify(result)}`);
  check(final.text === "The server echoed it.", `final text ${JSON.stringify(final.text)}`);
}

async function deniedRun() {
  step("run: a tool call the user denies");
  const { runID, after } = await startRun("please sum 2 and 3");
  const req = await confirmOf(runID, after, "get-sum");
  respond(req.msg.id, { answer: "deny" });
  const { st, final, events } = await endRun(runID, "completed");
  const decided = events.find((e) => e.type === "permission" && e.phase === "decided" && e.call.id === req.msg.params.call_id);
  check(decided && decided.decision === "deny" && decided.decided_by === "user", `decided event: want deny by user: ${JSON.stringify(decided)}`);
  check(!events.some((e) => e.type === "tool_result" && e.result && !e.result.is_error), `a denied call has a successful tool_result`);
  check(!final.text && /denied/.test(final.reason || ""), `final event after a plain deny: want no text and a reason saying denied: ${JSON.stringify(final)}`);
  check(!st.text, `run.status after a plain deny has text ${JSON.stringify(st.text)}`);
}

async function timedOutConfirm() {
  step("run: a confirm left unanswered times out");
  const { runID, after } = await startRun("echo, but nobody answers");
  const req = await confirmOf(runID, after, "echo");
  check(req.msg.params.timeout_ms === CONFIRM_TIMEOUT_MS, `confirm timeout_ms ${req.msg.params.timeout_ms}, want --confirm-timeout's ${CONFIRM_TIMEOUT_MS}`);
  const gone = await waitFor(`ui.request.cancelled for confirm ${req.msg.id}`, isNote("ui.request.cancelled", (p) => p.id === req.msg.id), req.seq);
  check(gone.msg.params.method === "ui.confirm.request" && gone.msg.params.reason === "timeout", `ui.request.cancelled: want reason timeout: ${JSON.stringify(gone.msg.params)}`);
  // A deny with a reason the model sees: the turn goes on to the script's
  // next step.
  const { final, events } = await endRun(runID, "completed");
  const decided = events.find((e) => e.type === "permission" && e.phase === "decided" && e.call.id === req.msg.params.call_id);
  check(decided && decided.decision === "deny_with_reason" && decided.decided_by === "timeout", `decided event after a timeout: ${JSON.stringify(decided)}`);
  check(final.text === "The echo did not go through.", `the turn did not go on after the timed-out confirm: final ${JSON.stringify(final)}`);
}

async function cancelledRun() {
  step("run: cancelled while its confirm is pending");
  const { runID, after } = await startRun("echo, then be cancelled");
  const req = await confirmOf(runID, after, "echo");
  const ans = await call("run.cancel", { run_id: runID });
  check(ans && Object.keys(ans).length === 0, `run.cancel answers ${JSON.stringify(ans)}, want {}`);
  const gone = await waitFor(`ui.request.cancelled for confirm ${req.msg.id}`, isNote("ui.request.cancelled", (p) => p.id === req.msg.id), req.seq);
  check(gone.msg.params.method === "ui.confirm.request" && gone.msg.params.reason === "cancelled",
    `ui.request.cancelled: want method ui.confirm.request, reason cancelled: ${JSON.stringify(gone.msg.params)}`);
  const { final } = await endRun(runID, "cancelled");
  check(!final.text && final.reason, `final event of a cancelled run: want a reason and no text: ${JSON.stringify(final)}`);
  // A late answer is ignored: the runtime goes on serving.
  respond(req.msg.id, { answer: "allow_once" });
  await call("mcp.list");
}

async function directCalls() {
  step("tool.call: allowed, then denied");
  let p = request("tool.call", { server: "everything", tool: "get-sum", arguments: { a: 2, b: 3 } });
  let req = await waitFor("the confirm of a direct tool.call", isReq("ui.confirm.request", (q) => q.tool && q.tool.tool === "get-sum" && !q.run_id), received.length ? received[received.length - 1].seq : 0);
  check(req.msg.params.call_id === undefined, `a direct tool.call's confirm has a call_id: ${JSON.stringify(req.msg.params)}`);
  respond(req.msg.id, { answer: "allow_once" });
  let ans = await p;
  check(!ans.error, `tool.call get-sum: ${JSON.stringify(ans.error)}`);
  check(ans.result.decided_by === "user" && ans.result.result.content.some((c) => c.type === "text" && c.text.includes("5")),
    `tool.call get-sum: want the sum 5, decided_by user: ${JSON.stringify(ans.result)}`);
  const mark = req.seq;
  p = request("tool.call", { server: "everything", tool: "get-sum", arguments: { a: 1, b: 1 } });
  req = await waitFor("the second direct confirm", isReq("ui.confirm.request", (q) => q.tool && q.tool.tool === "get-sum" && !q.run_id), mark);
  respond(req.msg.id, { answer: "deny" });
  ans = await p;
  check(ans.error && ans.error.code === -32004 && ans.error.data && ans.error.data.kind === "denied",
    `a denied tool.call: want -32004 with data.kind denied: ${JSON.stringify(ans)}`);
}

async function resourceLinks() {
  step("tool.call allowed by a rule: resource_link blocks");
  const mark = seq;
  const ans = await call("tool.call", { server: "everything", tool: "get-resource-links", arguments: { count: 2 } });
  check(ans.decided_by === "allow rule", `tool.call under --allow: decided_by ${JSON.stringify(ans.decided_by)}, want "allow rule"`);
  const asked = received.filter((e) => e.seq > mark && isReq("ui.confirm.request")(e.msg));
  check(asked.length === 0, `a call an allow rule allows was confirmed with the UI`);
  const links = ans.result.content.filter((c) => c.type === "resource_link");
  check(links.length === 2, `want 2 resource_link blocks: ${JSON.stringify(ans.result.content)}`);
  for (const l of links) {
    check(l.uri && l.name && l.mime_type && l.text, `a resource_link lacks uri, name, mime_type or text (its description): ${JSON.stringify(l)}`);
  }
}

async function elicitation() {
  step("ui.elicit.request: an answer that misses the form is asked again");
  const mark = seq;
  const p = request("tool.call", { server: "everything", tool: "trigger-elicitation-request", arguments: {} });
  const first = await waitFor("ui.elicit.request", isReq("ui.elicit.request"), mark);
  const q = first.msg.params;
  check(q.server === "everything" && q.requested_schema && q.requested_schema.properties && q.timeout_ms > 0 && q.attempt === undefined,
    `first ui.elicit.request: want server, requested_schema, timeout_ms and no attempt: ${JSON.stringify({ ...q, requested_schema: "…" })}`);
  respond(first.msg.id, { action: "accept", content: { integer: 500 } });
  const again = await waitFor("the second ui.elicit.request", isReq("ui.elicit.request"), first.seq);
  const r = again.msg.params;
  const invalid = Object.fromEntries((r.invalid || []).map((f) => [f.field, f.message]));
  check(again.msg.id !== first.msg.id && r.attempt === 2 && invalid.name && invalid.integer && r.content && r.content.integer === 500,
    `second ask: want a new id, attempt 2, invalid naming name and integer, content {integer: 500}: ${JSON.stringify({ ...r, requested_schema: "…" })}`);
  check(JSON.stringify(r.requested_schema) === JSON.stringify(q.requested_schema) && r.timeout_ms <= q.timeout_ms, `second ask: not the same form, or more time than the first`);
  respond(again.msg.id, { action: "accept", content: { name: "Ada", integer: 7 } });
  const ans = await p;
  check(!ans.error && ans.result.result.content.some((c) => c.type === "text" && c.text.includes("Ada")), `the server did not get the second answer: ${JSON.stringify(ans)}`);
}

async function statusChanges() {
  step("mcp.disable, mcp.enable, mcp.reconnect");
  const mark = seq;
  let ans = await call("mcp.disable", { id: "everything" });
  check(ans.server.state === "disabled" && ans.server.enabled === false, `mcp.disable answers ${JSON.stringify(ans.server)}, want state disabled, enabled false`);
  let st = await waitFor("mcp.status disabled", isNote("mcp.status", (p) => p.server.id === "everything" && p.server.state === "disabled"), mark);
  check(st.msg.params.removed === undefined, `a disabled server is not removed`);
  const tools = await call("tools.list", { server: "everything" });
  check(tools.tools.length === 0, `tools.list of a disabled server: ${tools.tools.length} tools`);
  ans = await request("tool.call", { server: "everything", tool: "echo", arguments: { message: "x" } });
  check(ans.error && ans.error.code === -32003 && ans.error.data.kind === "not_ready", `tool.call on a disabled server: want -32003 not_ready: ${JSON.stringify(ans)}`);

  let mark2 = seq;
  ans = await call("mcp.enable", { id: "everything" });
  check(ans.server.enabled === true && ["connecting", "ready"].includes(ans.server.state), `mcp.enable answers ${JSON.stringify(ans.server)}`);
  await waitFor("mcp.status ready after enable", isNote("mcp.status", (p) => p.server.id === "everything" && p.server.state === "ready" && p.server.tools > 0), mark2);

  mark2 = seq;
  ans = await call("mcp.reconnect", { id: "everything" });
  check(ans.server.state === "connecting" && ans.server.tools === 0, `mcp.reconnect answers ${JSON.stringify(ans.server)}, want connecting with tools 0`);
  await waitFor("mcp.status ready after reconnect", isNote("mcp.status", (p) => p.server.id === "everything" && p.server.state === "ready" && p.server.tools > 0), mark2);
  // No "ready" with 0 tools, and each change once.
  const statuses = received.filter((e) => e.seq > mark && isNote("mcp.status")(e.msg)).map((e) => JSON.stringify(e.msg.params));
  check(!statuses.some((s) => s.includes('"state":"ready"') && s.includes('"tools":0')), `a ready status with 0 tools: ${statuses.join("\n")}`);
  for (let i = 1; i < statuses.length; i++) {
    check(statuses[i] !== statuses[i - 1], `the same mcp.status twice in a row: ${statuses[i]}`);
  }
}

async function shutdown() {
  step("shutdown");
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  const ans = await call("shutdown");
  check(ans && Object.keys(ans).length === 0, `shutdown answers ${JSON.stringify(ans)}, want {}`);
  const timer = setTimeout(() => fail("host serve did not exit within 20s of answering shutdown"), 20_000);
  const { code, signal } = await exited;
  clearTimeout(timer);
  check(code === 0, `host serve exited with ${code ?? signal} after shutdown, want 0`);
}

async function main() {
  const { config, script } = writeFixtures();
  child = spawn(hostBin, ["serve", "--script", script, "--permissions", join(dir, "permissions.json"), "--confirm-timeout", `${CONFIRM_TIMEOUT_MS}ms`, "--allow", "everything/get-resource-links", "--allow", "everything/trigger-elicitation-request"], {
    cwd: dir, // no project layer but our own
    env: { ...process.env, MCP_HOST_CONFIG: config, MCP_HOST_SERVERS: "" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d) => { stderr = (stderr + d).slice(-4000); });
  child.on("close", (code, signal) => {
    // "close" comes after stderr has ended, so its tail is complete.
    if (!shuttingDown) fail(`host serve exited early (${code ?? signal}); its stderr ends:\n${stderr}`);
  });
  createInterface({ input: child.stdout }).on("line", onLine);

  await handshake(config);
  await lists();
  await errors();
  await streamedRun();
  await allowedRun();
  await deniedRun();
  await cancelledRun();
  await timedOutConfirm();
  await directCalls();
  await resourceLinks();
  await elicitation();
  await statusChanges();
  shuttingDown = true;
  await shutdown();
  const stray = [...pending.values()].map((p) => p.method);
  check(stray.length === 0, `requests never answered: ${stray.join(", ")}`);
  rmSync(dir, { recursive: true, force: true });
  if (process.env.UICLIENT_TRANSCRIPT) writeFileSync(process.env.UICLIENT_TRANSCRIPT, transcript.join("\n") + "\n");
  console.log("uiclient: PASS: every flow behaved as PROTOCOL.md says");
}

let shuttingDown = false;
main().catch((err) => fail(`uiclient crashed: ${err && err.stack || err}`));
