// host web's "New conversation", for mcp-host's end-to-end tests: Debian's
// chromium, driven by playwright-core, has one exchange, starts a new
// conversation (the transcript empties) and has a second exchange.
//
//   CHROMIUM=/usr/bin/chromium node web-newconv.mjs <address> <result.json>
import { onHostWebPage } from './chromium.mjs';

await onHostWebPage(async (page, obs) => {
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
});
