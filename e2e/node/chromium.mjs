// Launches Debian's chromium under playwright-core the same way for every
// browser script of mcp-host's end-to-end tests ($CHROMIUM, else
// /usr/bin/chromium).
import { chromium } from 'playwright-core';

export function launchChromium() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    // --no-sandbox: CI runs as root, where chromium's sandbox cannot start.
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    timeout: 60_000,
  });
}
