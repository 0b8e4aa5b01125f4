// A failed run in `host web`, for mcp-host's end-to-end tests: Debian's
// chromium, driven by playwright-core, sends a prompt whose run fails and
// records how often the run's error shows in the page.
//
//   CHROMIUM=/usr/bin/chromium node web-errors.mjs <address> <result.json>
import { onHostWebPage } from './chromium.mjs';

await onHostWebPage(async (page, obs) => {
  await page.fill('#prompt', 'please fail');
  await page.press('#prompt', 'Enter');
  // The run's failure arrives three times (the error event, the final
  // event, run.status); the last, run.status, re-enables nothing but comes
  // after the others: wait for the run to be over, then a moment more.
  await page.waitForSelector('#log .msg.assistant.done');
  await page.waitForFunction(() => document.querySelector('#cancel').disabled);
  await page.waitForTimeout(1000);
  obs.run = await page.innerText('#log .msg.assistant');
  obs.errors = await page.$$eval('#log .error', (n) => n.map((e) => e.innerText));
  obs.log = await page.innerText('#log');
});
