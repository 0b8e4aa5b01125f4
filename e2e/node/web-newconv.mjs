// host web's "New conversation", for mcp-host's end-to-end tests: Debian's
// chromium, driven by playwright-core, has one exchange, starts a new
// conversation (the transcript empties) and has a second exchange.
//
//   CHROMIUM=/usr/bin/chromium node web-newconv.mjs <address> <result.json>
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
  const exchange = async (prompt, n) => {
    await page.fill('#prompt', prompt);
    await page.press('#prompt', 'Enter');
    await page.waitForFunction((k) => document.querySelectorAll('#log .msg.assistant.done').length === k, n);
  };
  await exchange('first question', 1);
  obs.messagesBefore = await page.$$eval('#log .msg', (m) => m.length);
  await page.click('#new-conversation');
  await page.waitForFunction(() => !document.querySelector('#log .msg'));
  obs.messagesAfterNew = await page.$$eval('#log .msg', (m) => m.length);
  await exchange('second question', 1);
  obs.answers = await page.$$eval('#log .msg.assistant', (m) => m.map((e) => e.innerText.trim()));
} catch (e) {
  obs.error = String((e && e.stack) || e);
  process.exitCode = 1;
} finally {
  writeFileSync(resultFile, JSON.stringify(obs, null, 2));
  if (browser) await browser.close();
}
