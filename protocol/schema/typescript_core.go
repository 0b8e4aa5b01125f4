package schema

// jsCore is the hand-written part of index.js: the connection, spawning
// and shutting down host serve, the dispatch of the runtime's requests and
// notifications. It avoids template literals (Go raw strings).
const jsCore = `
import { spawn } from "node:child_process";
import { EventEmitter } from "node:events";
import { createInterface } from "node:readline";

/** An error answer of the runtime: code, message and data (kind, field, …). */
export class ProtocolError extends Error {
  constructor(method, error) {
    super(error.message);
    this.name = "ProtocolError";
    this.method = method;
    this.code = error.code;
    this.data = error.data;
  }
}

/**
 * A connection to host serve over two streams, one JSON-RPC message a
 * line. Notifications arrive as events named by their method; the
 * runtime's requests go to the handlers given in options.handlers.
 */
export class HostClient extends EventEmitter {
  constructor(readable, writable, options = {}) {
    super();
    this.child = null;
    this.handlers = Object.assign({}, options.handlers);
    this._out = writable;
    this._next = 1;
    this._pending = new Map();
    this._running = new Map();
    this._closed = false;
    const rl = createInterface({ input: readable, crlfDelay: Infinity });
    rl.on("line", (line) => this._receive(line));
    rl.on("close", () => this._end(new Error("host serve closed its output")));
  }

  /** Spawns host serve and connects to it. */
  static spawn(options = {}) {
    const command = options.command || "host";
    const args = options.args || ["serve"];
    const child = spawn(command, args, {
      cwd: options.cwd, env: options.env,
      stdio: ["pipe", "pipe", options.stderr || "inherit"],
    });
    const client = new HostClient(child.stdout, child.stdin, options);
    client.child = child;
    client.exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve(code === null ? signal : code)));
    child.on("error", (err) => client._end(err));
    return client;
  }

  /** Sets the handler of a runtime request (confirm, prompt, openURL, elicit). */
  handle(name, fn) {
    this.handlers[name] = fn;
    return this;
  }

  /** Sends a request; resolves with its result or rejects with a ProtocolError. */
  request(method, params, options = {}) {
    if (this._closed) return Promise.reject(new Error(method + ": the connection is closed"));
    const id = this._next++;
    return new Promise((resolve, reject) => {
      this._pending.set(id, { method, resolve, reject });
      const signal = options.signal;
      if (signal) {
        const abort = () => this.notify("ui.request.cancelled", { id, method, reason: "cancelled" });
        if (signal.aborted) abort(); else signal.addEventListener("abort", abort, { once: true });
      }
      this._send(params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params });
    });
  }

  /** Sends a notification. */
  notify(method, params) {
    this._send({ jsonrpc: "2.0", method, params });
  }

  /** initialize with this client's protocol version unless params names one. */
  initialize(params = {}, options) {
    return this.request("initialize", Object.assign({ protocol_version: PROTOCOL_VERSION, client_info: { name: "@mcp-host/client" }, capabilities: {} }, params), options);
  }

  /**
   * Shuts host serve down: shutdown, then its stdin closed; resolves with
   * its exit code, killing it when it has not exited after timeoutMs.
   */
  async close(timeoutMs = 10000) {
    if (!this._closed) {
      try {
        await Promise.race([this.request("shutdown"), new Promise((r) => setTimeout(r, timeoutMs).unref())]);
      } catch {
        // already gone or shutting down
      }
    }
    this._out.end();
    if (!this.child) return 0;
    const timer = setTimeout(() => this.child.kill("SIGKILL"), timeoutMs);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }

  _send(msg) {
    this.emit("sent", msg);
    this._out.write(JSON.stringify(msg) + "\n");
  }

  _end(err) {
    if (this._closed) return;
    this._closed = true;
    for (const p of this._pending.values()) p.reject(err);
    this._pending.clear();
    this.emit("close", err);
  }

  _receive(line) {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      this.emit("protocolError", new Error("host serve wrote a line that is not JSON: " + line.slice(0, 200)));
      return;
    }
    this.emit("message", msg);
    if (msg.method === undefined) {
      const p = this._pending.get(msg.id);
      if (!p) {
        this.emit("protocolError", new Error("an answer to no request of this client: " + line.slice(0, 200)));
        return;
      }
      this._pending.delete(msg.id);
      if (msg.error) p.reject(new ProtocolError(p.method, msg.error));
      else p.resolve(msg.result);
      return;
    }
    if (msg.id === undefined) {
      if (msg.method === "ui.request.cancelled" && msg.params) {
        const ac = this._running.get(msg.params.id);
        if (ac) ac.abort(msg.params.reason);
      }
      this.emit(msg.method, msg.params);
      return;
    }
    this._answer(msg);
  }

  async _answer(msg) {
    const name = UI_HANDLERS[msg.method];
    const fn = name && this.handlers[name];
    if (!fn) {
      this._send({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "the UI has no handler for " + msg.method } });
      return;
    }
    const ac = new AbortController();
    this._running.set(msg.id, ac);
    try {
      const result = await fn(msg.params, { signal: ac.signal, id: msg.id });
      this._send({ jsonrpc: "2.0", id: msg.id, result });
    } catch (err) {
      this._send({ jsonrpc: "2.0", id: msg.id, error: { code: -32603, message: String(err && err.message || err) } });
    } finally {
      this._running.delete(msg.id);
    }
  }
}
`

// dtsCore is the hand-written part of index.d.ts after the generated
// types; the typed request methods follow it.
const dtsCore = `
/** An error answer of the runtime. */
export declare class ProtocolError extends Error {
  readonly method: string;
  readonly code: number;
  readonly data?: ErrorData;
}

/** Options of a request. */
export interface RequestOptions {
  /** Aborting withdraws the request (ui.request.cancelled). */
  signal?: AbortSignal;
}

/** Options of HostClient.spawn and the constructor. */
export interface ClientOptions {
  /** The host binary ("host"). */
  command?: string;
  /** Its arguments (["serve"]). */
  args?: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** What becomes of host serve's stderr ("inherit"). */
  stderr?: "inherit" | "pipe" | "ignore";
  /** The handlers of the runtime's requests. */
  handlers?: UIHandlers;
}

/** A connection to host serve. */
export declare class HostClient extends EventEmitter {
  constructor(readable: Readable, writable: Writable, options?: ClientOptions);
  /** Spawns host serve and connects to it. */
  static spawn(options?: ClientOptions): HostClient;
  /** The spawned process, or null. */
  readonly child: import("node:child_process").ChildProcess | null;
  /** Resolves with the exit code (or signal) of the spawned process. */
  readonly exited?: Promise<number | string>;
  /** Sets the handler of one of the runtime's requests. */
  handle<K extends keyof UIHandlers>(name: K, fn: NonNullable<UIHandlers[K]>): this;
  request<M extends keyof Requests>(method: M, params?: Requests[M]["params"], options?: RequestOptions): Promise<Requests[M]["result"]>;
  notify(method: string, params?: unknown): void;
  /** Shuts host serve down and resolves with its exit code. */
  close(timeoutMs?: number): Promise<number | string>;
  on<K extends keyof Notifications>(event: K, listener: (params: Notifications[K]) => void): this;
  on(event: "close", listener: (err: Error) => void): this;
  on(event: "protocolError", listener: (err: Error) => void): this;
  /** Every message from host serve, before it is dispatched (for a log view). */
  on(event: "message", listener: (msg: Record<string, unknown>) => void): this;
  /** Every message to host serve, as it is sent. */
  on(event: "sent", listener: (msg: Record<string, unknown>) => void): this;
  once<K extends keyof Notifications>(event: K, listener: (params: Notifications[K]) => void): this;
  once(event: "close" | "protocolError", listener: (err: Error) => void): this;
`
