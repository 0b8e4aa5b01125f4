// ui.ts is a small UI written in strict TypeScript against the installed
// @mcp-host/client package, as a desktop team would write one:
// e2e/client_package_test.go packs the package, installs the tarball in a
// scratch project, compiles this file with the pinned tsc --strict and
// runs it against the real host serve with a scripted model. It
// initializes, lists the servers, runs one turn whose tool call asks
// ui.confirm.request, allows it, and waits for the run's final
// agent.event, checking each answer. Any deviation exits 1 with a line
// saying what was expected; success prints "ui: PASS".
//
// Usage: MCP_HOST_BIN=/path/to/host node ui.js SCRIPT_FILE
// (the configuration comes from the environment: MCP_HOST_CONFIG, with a
// stdio server "local" that has the tool word_count).

import {
  HostClient,
  ProtocolError,
  ERROR_CODES,
  type AgentEventParams,
  type ConfirmParams,
  type ConfirmResult,
  type ServerStatus,
} from "@mcp-host/client";
import { PACKAGE_VERSION, PROTOCOL_VERSIONS } from "@mcp-host/client/versions";

function fail(msg: string): never {
  console.error("ui: FAIL: " + msg);
  process.exit(1);
}

function check(ok: boolean, msg: string): void {
  if (!ok) fail(msg);
}

const script = process.argv[2];
const bin = process.env.MCP_HOST_BIN;
if (!script || !bin) fail("usage: MCP_HOST_BIN=HOST node ui.js SCRIPT_FILE");
setTimeout(() => fail("no final agent.event within 60 s"), 60_000).unref();

const confirms: ConfirmParams[] = [];
const host = HostClient.spawn({
  command: bin,
  args: ["serve", "--script", script],
  stderr: "inherit",
  handlers: {
    confirm(p: ConfirmParams): ConfirmResult {
      confirms.push(p);
      return { answer: p.options?.includes("allow_once") ? "allow_once" : "deny" };
    },
  },
});
const events: AgentEventParams[] = [];
let onFinal: (e: AgentEventParams) => void = () => {};
host.on("agent.event", (e) => {
  events.push(e);
  if (e.type === "final") onFinal(e);
});

const init = await host.initialize({
  client_info: { name: "strict-ui", version: PACKAGE_VERSION },
  capabilities: { confirm: true },
});
check(PROTOCOL_VERSIONS.includes(init.protocol_version), `initialize: protocol ${init.protocol_version}, the package speaks ${PROTOCOL_VERSIONS.join(", ")}`);
check(init.capabilities.runs, "initialize: capabilities.runs is false with --script");

// An error answer is a typed ProtocolError.
try {
  await host.mcpGet({ server: "nope" });
  fail("mcp.get of an unknown server answered");
} catch (err) {
  check(err instanceof ProtocolError && err.code === ERROR_CODES.unknown_server && err.data?.kind === "unknown_server", `mcp.get nope: ${String(err)}`);
}

// mcp.list until no server is connecting any more (a run sees the tools
// of the servers ready when it starts).
let servers: ServerStatus[] = [];
for (let i = 0; ; i++) {
  servers = (await host.mcpList()).servers ?? [];
  if (!servers.some((s) => s.status === "connecting")) break;
  check(i < 300, "mcp.list: a server is still connecting after 30 s");
  await new Promise((r) => setTimeout(r, 100));
}
const local = servers.find((s) => s.id === "local");
check(local !== undefined && local.status === "ready" && local.tools === 2, `mcp.list: want local ready with 2 tools, got ${JSON.stringify(servers)}`);

const final = new Promise<AgentEventParams>((resolve) => {
  onFinal = resolve;
});
const run = await host.runStart({ prompt: "How many words are in: one two three?" });
const end = await final;
check(end.run_id === run.run_id, `final event of run ${end.run_id}, started ${run.run_id}`);
check(end.status === "completed" && end.text === "The text has 3 words.", `final: ${end.status} ${JSON.stringify(end.text)} (${end.reason ?? ""} ${end.error ?? ""})`);

check(confirms.length === 1, `want one ui.confirm.request, got ${confirms.length}`);
const c = confirms[0];
check(c !== undefined && c.kind === "tool_call" && c.run_id === run.run_id && c.tool?.server === "local" && c.tool.tool === "word_count", `confirm: ${JSON.stringify(c)}`);
const types = events.filter((e) => e.run_id === run.run_id).map((e) => e.type + (e.phase ? "/" + e.phase : ""));
for (const want of ["tool_call", "permission/asked", "permission/decided", "tool_result", "final"]) {
  check(types.includes(want), `agent.event ${want} missing from ${types.join(" ")}`);
}
const decided = events.find((e) => e.type === "permission" && e.phase === "decided");
check(decided?.decision === "allow" && decided.decided_by === "user", `permission decided: ${JSON.stringify(decided)}`);
const result = events.find((e) => e.type === "tool_result")?.result;
const text = result?.content?.map((b) => b.text ?? "").join("") ?? "";
check(text === "3 words", `tool_result: ${JSON.stringify(result)}`);

const code = await host.close();
check(code === 0, `host serve exited ${code}`);
console.log(`ui: PASS: protocol ${init.protocol_version}, package ${PACKAGE_VERSION}, ${servers.length} server(s), run ${run.run_id} ${end.status}: ${end.text}`);
