// Tests of @mcp-host/client: over in-memory streams (the protocol
// mechanics) and, when MCP_HOST_BIN names a host binary, against a real
// `host serve` it spawns and shuts down.
import { test } from "node:test";
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { createInterface } from "node:readline";
import { mkdtempSync, copyFileSync, readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HostClient, ProtocolError, PROTOCOL_VERSION, METHODS, ERROR_CODES, UI_HANDLERS } from "../index.js";
import { PROTOCOL_VERSIONS, PACKAGE_VERSION, PROTOCOL_VERSION as VERSIONS_PROTOCOL_VERSION } from "../versions.js";

// fakeRuntime connects a HostClient to a scripted peer: lines() yields what
// the client writes, send() writes to it.
function fakeRuntime(options) {
  const toClient = new PassThrough();
  const fromClient = new PassThrough();
  const client = new HostClient(toClient, fromClient, options);
  const lines = createInterface({ input: fromClient })[Symbol.asyncIterator]();
  return {
    client,
    async next() { return JSON.parse((await lines.next()).value); },
    send(msg) { toClient.write(JSON.stringify(msg) + "\n"); },
  };
}

test("the generated tables cover the protocol", () => {
  assert.match(PROTOCOL_VERSION, /^\d{4}-\d\d-\d\d$/);
  const names = METHODS.map((m) => m.name);
  for (const m of ["initialize", "mcp.list", "tool.call", "run.start", "shutdown", "ui.confirm.request", "agent.event"]) {
    assert.ok(names.includes(m), m);
  }
  assert.equal(ERROR_CODES.unknown_server, -32002);
  assert.deepEqual(Object.values(UI_HANDLERS).sort(), ["confirm", "elicit", "openURL", "prompt"]);
  for (const m of METHODS.filter((m) => m.direction === "ui_to_runtime" && !m.notification)) {
    const name = m.name.replace(/[._](.)/g, (_, c) => c.toUpperCase()).replace("Url", "URL");
    assert.equal(typeof HostClient.prototype[name], "function", name);
  }
});

test("package.json, versions.js and the generated client agree on the versions", () => {
  const pkg = JSON.parse(readFileSync(fileURLToPath(new URL("../package.json", import.meta.url)), "utf8"));
  assert.match(pkg.version, /^\d+\.\d+\.\d+$/);
  assert.equal(PACKAGE_VERSION, pkg.version);
  // A protocol version the generator brings in must be named here too,
  // and the package's version raised with it.
  assert.deepEqual([...PROTOCOL_VERSIONS], pkg.mcpHost.protocolVersions);
  assert.equal(PROTOCOL_VERSIONS[0], PROTOCOL_VERSION);
  assert.equal(VERSIONS_PROTOCOL_VERSION, PROTOCOL_VERSION);
  assert.ok(Object.isFrozen(PROTOCOL_VERSIONS));
  assert.deepEqual(pkg.dependencies ?? {}, {}, "no runtime dependencies");
});

test("index.d.ts is TypeScript that Node's type stripping parses", () => {
  const dir = mkdtempSync(join(tmpdir(), "mcp-host-dts-"));
  const mts = join(dir, "index.d.mts");
  copyFileSync(fileURLToPath(new URL("../index.d.ts", import.meta.url)), mts);
  // A syntax error makes the child exit non-zero, and execFileSync throw.
  execFileSync(process.execPath, ["--experimental-strip-types", "--no-warnings", "--input-type=module", "-e", "await import(" + JSON.stringify("file://" + mts) + ")"], { stdio: "pipe" });
});

test("requests resolve with their result, errors reject with ProtocolError", async () => {
  const rt = fakeRuntime();
  const init = rt.client.initialize({ capabilities: { confirm: true } });
  const req = await rt.next();
  assert.equal(req.method, "initialize");
  assert.equal(req.params.protocol_version, PROTOCOL_VERSION);
  assert.deepEqual(req.params.capabilities, { confirm: true });
  rt.send({ jsonrpc: "2.0", id: req.id, result: { protocol_version: PROTOCOL_VERSION, servers: [] } });
  assert.equal((await init).protocol_version, PROTOCOL_VERSION);

  const get = rt.client.mcpGet({ server: "nope" });
  const r2 = await rt.next();
  assert.deepEqual([r2.method, r2.params], ["mcp.get", { server: "nope" }]);
  rt.send({ jsonrpc: "2.0", id: r2.id, error: { code: -32002, message: "no server", data: { kind: "unknown_server", server: "nope" } } });
  await assert.rejects(get, (err) => err instanceof ProtocolError && err.code === -32002 && err.data.kind === "unknown_server");
});

test("notifications are events, requests go to the handlers", async () => {
  const rt = fakeRuntime({ handlers: { confirm: async (p) => ({ answer: p.options[0] }) } });
  const status = new Promise((resolve) => rt.client.once("mcp.status", resolve));
  rt.send({ jsonrpc: "2.0", method: "mcp.status", params: { server: { id: "a", state: "ready", status: "ready" } } });
  assert.equal((await status).server.id, "a");

  rt.send({ jsonrpc: "2.0", id: 7, method: "ui.confirm.request", params: { kind: "tool_call", options: ["allow_once", "deny"] } });
  assert.deepEqual(await rt.next(), { jsonrpc: "2.0", id: 7, result: { answer: "allow_once" } });

  rt.send({ jsonrpc: "2.0", id: 8, method: "ui.prompt.request", params: { title: "t" } });
  const unhandled = await rt.next();
  assert.equal(unhandled.id, 8);
  assert.equal(unhandled.error.code, -32601);
});

test("ui.request.cancelled aborts the handler's signal; a withdrawn request notifies the runtime", async () => {
  let aborted;
  const rt = fakeRuntime();
  rt.client.handle("elicit", (p, ctx) => new Promise((resolve) => {
    ctx.signal.addEventListener("abort", () => { aborted = ctx.signal.reason; resolve({ action: "cancel" }); });
  }));
  rt.send({ jsonrpc: "2.0", id: 3, method: "ui.elicit.request", params: { server: "s", message: "m" } });
  rt.send({ jsonrpc: "2.0", method: "ui.request.cancelled", params: { id: 3, method: "ui.elicit.request", reason: "timeout" } });
  assert.deepEqual(await rt.next(), { jsonrpc: "2.0", id: 3, result: { action: "cancel" } });
  assert.equal(aborted, "timeout");

  const ac = new AbortController();
  const call = rt.client.toolCall({ server: "s", tool: "t" }, { signal: ac.signal });
  const req = await rt.next();
  ac.abort();
  assert.deepEqual(await rt.next(), { jsonrpc: "2.0", method: "ui.request.cancelled", params: { id: req.id, method: "tool.call", reason: "cancelled" } });
  rt.send({ jsonrpc: "2.0", id: req.id, error: { code: -32008, message: "cancelled" } });
  await assert.rejects(call, (err) => err.code === -32008);
});

const host = process.env.MCP_HOST_BIN;

test("spawns host serve, speaks to it, shuts it down", { skip: !host && "MCP_HOST_BIN is not set" }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "mcp-host-client-"));
  const env = { ...process.env, MCP_HOST_CONFIG: join(dir, "config.json"), MCP_HOST_SERVERS: "{}", MCP_HOST_CACHE_DIR: dir, MCP_HOST_TOKEN_STORE: "file" };
  const client = HostClient.spawn({ command: host, args: ["serve"], cwd: dir, env, stderr: "ignore" });

  await assert.rejects(client.initialize({ protocol_version: "2026-01-01" }), (err) =>
    err.code === ERROR_CODES.unsupported_version && err.message.includes("2026-01-01") && err.message.includes(PROTOCOL_VERSION));
  const init = await client.initialize({ client_info: { name: "client.test.js" }, capabilities: { confirm: true } });
  assert.equal(init.protocol_version, PROTOCOL_VERSION);
  assert.equal(init.capabilities.login, true);
  const list = await client.mcpList();
  assert.ok(Array.isArray(list.servers));
  await assert.rejects(client.mcpGet({ server: "nope" }), (err) => err instanceof ProtocolError && err.data.kind === "unknown_server");
  // "id" is the deprecated alias of "server"; both, differing, is refused.
  await assert.rejects(client.mcpGet({ id: "nope" }), (err) => err.data.kind === "unknown_server");
  await assert.rejects(client.mcpGet({ server: "a", id: "b" }), (err) => err.code === -32602 && err.data.field === "id");
  const perms = await client.mcpPermissionsList({});
  assert.ok(Array.isArray(perms.answers));
  await assert.rejects(client.mcpPermissionsRevoke({ server: "nope" }), (err) => err.data.kind === "failed" && err.data.server === "nope");
  const tools = await client.toolsList({});
  assert.ok(Array.isArray(tools.tools));
  assert.equal(await client.close(), 0);
});
