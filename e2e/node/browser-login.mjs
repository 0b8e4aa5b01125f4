// A person logging in with a real browser, for mcp-host's end-to-end tests:
// Debian's chromium, driven by playwright-core, opens the authorization URL,
// signs in on oidc-provider's login page, continues through its consent
// page, and ends on the runtime's loopback callback page.
//
//   CHROMIUM=/usr/bin/chromium node browser-login.mjs <authorization URL> <result.json>
//
// It writes {"url": final URL, "title": ..., "text": page text, "pages": [every
// URL the browser was on]} to result.json, or {"error": ...} when a step
// fails; its exit code says which.
import { writeFileSync } from 'node:fs';
import { launchChromium } from './chromium.mjs';

const [authURL, resultFile] = process.argv.slice(2);
if (!authURL || !resultFile) {
  console.error('usage: browser-login.mjs <authorization URL> <result.json>');
  process.exit(2);
}
const issuerOrigin = new URL(authURL).origin;
const pages = [];
let browser;
try {
  browser = await launchChromium();
  const page = await browser.newPage();
  page.on('framenavigated', (f) => { if (f === page.mainFrame()) pages.push(f.url()); });
  page.setDefaultTimeout(30_000);
  await page.goto(authURL);
  await page.fill('input[name=login]', 'e2e-user');
  await page.fill('input[name=password]', 'e2e-password');
  await page.click('button:has-text("Sign-in")');
  // The consent page; Continue leads, through the provider, to the callback.
  await Promise.all([
    page.waitForURL((u) => u.origin !== issuerOrigin),
    page.click('button:has-text("Continue")'),
  ]);
  await page.waitForLoadState('load');
  writeFileSync(resultFile, JSON.stringify({
    url: page.url(), title: await page.title(), text: await page.innerText('body'), pages,
  }));
} catch (e) {
  writeFileSync(resultFile, JSON.stringify({ error: String(e && e.stack || e), pages }));
  process.exitCode = 1;
} finally {
  if (browser) await browser.close();
}
