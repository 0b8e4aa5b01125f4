// Launches Debian's chromium under playwright-core the same way for every
// browser script of mcp-host's end-to-end tests ($CHROMIUM, else
// /usr/bin/chromium).
import { writeFileSync } from 'node:fs';
import { chromium } from 'playwright-core';

export function launchChromium() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    // --no-sandbox: CI runs as root, where chromium's sandbox cannot start.
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    timeout: 60_000,
  });
}

// onHostWebPage is a whole browser script of the simple kind: argv holds
// host web's address and the result file; it opens the page in chromium,
// waits until the page is connected to the runtime, and runs
// steps(page, obs), which records what it saw in obs. obs (with "error" and
// exit code 1 when a step fails) is written to the result file, and the
// browser is closed, whatever happens. With console set, the page's
// console messages are kept in obs.console.
export async function onHostWebPage(steps, { console: keepConsole = false } = {}) {
  const [address, resultFile] = process.argv.slice(2);
  if (!address || !resultFile) {
    console.error('usage: node <script> <address> <result.json>');
    process.exit(2);
  }
  const obs = keepConsole ? { console: [] } : {};
  let browser;
  try {
    browser = await launchChromium();
    const page = await (await browser.newContext()).newPage();
    page.setDefaultTimeout(45_000);
    if (keepConsole) page.on('console', (m) => obs.console.push(m.type() + ': ' + m.text()));
    await page.goto(address);
    await page.waitForSelector('#conn:text("connected")');
    await steps(page, obs);
  } catch (e) {
    obs.error = String((e && e.stack) || e);
    process.exitCode = 1;
  } finally {
    writeFileSync(resultFile, JSON.stringify(obs, null, 2));
    if (browser) await browser.close();
  }
}
