// The TypeScript SDK column of `make bench`: an MCP client of
// @modelcontextprotocol/sdk (the version e2e/node pins) over Streamable
// HTTP, driven line by line on stdin so that its rounds interleave with
// the Go paths':
//
//   seq N      N calls of the echo tool one after another
//   par N W    N calls, W at a time
//
// Each command is answered on stdout with one JSON line {"ns": elapsed}.
// Usage: node client.mjs <node_modules dir> <server url>
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [modules, url] = process.argv.slice(2);
const sdk = (p) => import(pathToFileURL(join(modules, '@modelcontextprotocol/sdk/dist/esm', p)).href);
const { Client } = await sdk('client/index.js');
const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js');

const client = new Client({ name: 'bench-ts', version: '1' });
await client.connect(new StreamableHTTPClientTransport(new URL(url)));

async function call() {
  const res = await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
  if (res.isError) throw new Error('echo failed: ' + JSON.stringify(res.content));
}

async function run(n, width) {
  let next = 0;
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < n) {
      next++;
      await call();
    }
  }));
  return Number(process.hrtime.bigint() - start);
}

console.log(JSON.stringify({ ready: true }));
for await (const line of createInterface({ input: process.stdin })) {
  const [cmd, n, w] = line.trim().split(/\s+/);
  if (cmd === 'seq') console.log(JSON.stringify({ ns: await run(Number(n), 1) }));
  else if (cmd === 'par') console.log(JSON.stringify({ ns: await run(Number(n), Number(w)) }));
  else if (cmd) console.log(JSON.stringify({ error: 'unknown command ' + cmd }));
}
await client.close();
