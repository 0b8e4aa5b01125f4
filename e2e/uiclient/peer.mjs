// peer.mjs is the protocol side of uiclient.mjs: failing with the last
// protocol lines, and the JSON-RPC peer over @mcp-host/client that keeps
// every message from the runtime in order so that the flows can check what
// came when. connect hands it the spawned client.
import { rmSync } from "node:fs";
import { ProtocolError } from "../../clients/typescript/index.js";

export const WAIT_MS = 60_000;

let child;
let dir;
let failed = false;

// ---- failure and logging ----

export const transcript = []; // every line both ways, for the failure report

export function fail(msg) {
  if (failed) return;
  failed = true;
  console.error(`uiclient: FAIL: ${msg}`);
  console.error("uiclient: the last protocol lines (> UI to runtime, < runtime to UI):");
  for (const l of transcript.slice(-25)) console.error("  " + l.slice(0, 400));
  if (child) child.kill("SIGKILL");
  try { rmSync(dir, { recursive: true, force: true }); } catch {}
  process.exit(1);
}

export function check(cond, msg) {
  if (!cond) fail(msg);
}

export function step(name) {
  console.log(`uiclient: ${name}`);
}

// ---- the JSON-RPC peer: @mcp-host/client (clients/typescript) ----
//
// The package carries the lines; this file keeps every message it sees, in
// order, so that the flows below can check what came when.

let client;
export const pending = new Map(); // id -> method, of our requests not yet answered
export const received = []; // every message from the runtime, in order: {seq, msg}
let waiters = []; // {pred, resolve}
let seq = 0;
const answers = new Map(); // id of a runtime request -> its handler's resolve
const answerSeq = new Map(); // id of our request -> the seq its answer arrived at
let lastSentID; // the id of the request the client sent last

// request sends a request and resolves with the whole answer object
// ({result} or {error}) and the sequence number it arrived at.
export function request(method, params) {
  const timer = setTimeout(() => fail(`${method} got no answer within ${WAIT_MS / 1000}s`), WAIT_MS);
  const p = client.request(method, params);
  const id = lastSentID; // request sends synchronously
  pending.set(id, method);
  const done = (ans) => {
    clearTimeout(timer);
    pending.delete(id);
    const at = answerSeq.get(id);
    answerSeq.delete(id);
    return { ...ans, seq: at };
  };
  return p.then((result) => done({ result }), (err) => {
    check(err instanceof ProtocolError, `${method}: ${err}`);
    return done({ error: { code: err.code, message: err.message, data: err.data } });
  });
}

export async function call(method, params) {
  const ans = await request(method, params);
  check(!ans.error, `${method} failed: ${JSON.stringify(ans.error)}`);
  return ans.result;
}

// respond answers the runtime's request id (its handler waits for it).
export function respond(id, result) {
  const resolve = answers.get(id);
  check(resolve, `no runtime request ${id} is waiting for an answer`);
  answers.delete(id);
  resolve(result);
}

// Every runtime request waits until a flow answers it with respond.
export const waitForRespond = (_params, ctx) => new Promise((resolve) => answers.set(ctx.id, resolve));

function onMessage(msg) {
  check(msg.jsonrpc === "2.0", `a message without "jsonrpc": "2.0": ${JSON.stringify(msg).slice(0, 200)}`);
  if (msg.method === undefined) {
    // An answer to one of our requests: request() resolves with it, and
    // with the place it came in.
    check(pending.has(msg.id), `an answer to no request of ours (id ${JSON.stringify(msg.id)}): ${JSON.stringify(msg).slice(0, 200)}`);
    answerSeq.set(msg.id, ++seq);
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
export function waitFor(what, pred, after = 0, ms = WAIT_MS) {
  const have = received.find((e) => e.seq > after && pred(e.msg));
  if (have) return Promise.resolve(have);
  return new Promise((resolve) => {
    const timer = setTimeout(() => fail(`waited ${ms / 1000}s for ${what}`), ms);
    // Messages not yet received all come after `after`.
    waiters.push({ pred, resolve: (e) => { clearTimeout(timer); resolve(e); } });
  });
}

export const isNote = (method, f = () => true) => (m) => m.method === method && m.id === undefined && f(m.params);
export const isReq = (method, f = () => true) => (m) => m.method === method && m.id !== undefined && f(m.params);

export function runMsgs(runID) {
  return received.filter((e) => (e.msg.method === "agent.event" || e.msg.method === "run.status") && e.msg.params.run_id === runID);
}

// lastSeq is the sequence number of the last message from the runtime: a
// flow marks it to look only at what comes after.
export function lastSeq() {
  return seq;
}

// connect takes the spawned client: every line both ways goes to the
// transcript, every message from the runtime through onMessage; a failure
// kills its process and removes cleanupDir.
export function connect(c, cleanupDir) {
  client = c;
  child = c.child;
  dir = cleanupDir;
  client.on("sent", (msg) => {
    transcript.push("> " + JSON.stringify(msg));
    if (msg.method !== undefined && msg.id !== undefined) lastSentID = msg.id;
  });
  client.on("message", (msg) => { transcript.push("< " + JSON.stringify(msg)); onMessage(msg); });
  client.on("protocolError", (err) => fail(`stdout carries protocol messages only (PROTOCOL.md, Transport): ${err.message}`));
}
