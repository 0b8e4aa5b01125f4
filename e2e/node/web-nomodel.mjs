// host web without a model, for mcp-host's end-to-end tests: Debian's
// chromium, driven by playwright-core, sends a prompt and reads what the
// page says about it.
//
//   CHROMIUM=/usr/bin/chromium node web-nomodel.mjs <address> <result.json>
import { writeFileSync } from 'node:fs';
import { launchChromium } from './chromium.mjs';

const [address, resultFile] = process.argv.slice(2);
const obs = {};
let browser;
try {
  browser = await launchChromium();
  const page = await (await browser.newContext()).newPage();
  page.setDefaultTimeout(45_000);
  await page.goto(address);
  await page.waitForSelector('#conn:text("connected")');
  await page.fill('#prompt', 'hello');
  await page.press('#prompt', 'Enter');
  await page.waitForSelector('#log .note.error');
  obs.note = await page.innerText('#log .note.error');
} catch (e) {
  obs.error = String((e && e.stack) || e);
  process.exitCode = 1;
} finally {
  writeFileSync(resultFile, JSON.stringify(obs, null, 2));
  if (browser) await browser.close();
}
