// host web without a model, for mcp-host's end-to-end tests: Debian's
// chromium, driven by playwright-core, sends a prompt and reads what the
// page says about it.
//
//   CHROMIUM=/usr/bin/chromium node web-nomodel.mjs <address> <result.json>
import { onHostWebPage } from './chromium.mjs';

await onHostWebPage(async (page, obs) => {
  await page.fill('#prompt', 'hello');
  await page.press('#prompt', 'Enter');
  await page.waitForSelector('#log .note.error');
  obs.note = await page.innerText('#log .note.error');
});
