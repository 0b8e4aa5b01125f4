// The last step of `host demo` as a person sees it, for mcp-host's
// end-to-end tests: the demo opens the web UI with the system browser
// (xdg-open, which a test points at this script). Debian's chromium, driven
// by playwright-core, opens the address, logs in to the demo's protected
// server from /mcp (login confirm, then the login page in a new tab), asks
// for the weather, allows the call and reads the answer.
//
//   CHROMIUM=/usr/bin/chromium node web-demo.mjs <address> <result.json>
//
// It writes what it saw to result.json ({"error": ...} when a step fails).
import { onHostWebPage } from './chromium.mjs';

await onHostWebPage(async (page, obs) => {
  await page.click('#tab-mcp');
  await page.waitForSelector('tr[data-server="local"] td.state:text("ready")');
  await page.waitForSelector('tr[data-server="notes"] td.state:text("auth_required")');
  obs.before = await page.$$eval('#servers tbody tr', (rows) => rows.map((r) => r.innerText.replace(/\s+/g, ' ')));
  await page.click('tr[data-server="notes"] button.login');
  await page.click('.ask.confirm button[data-answer="yes"]');
  const [popup] = await Promise.all([page.context().waitForEvent('page'), page.click('.ask.open-url a')]);
  await popup.waitForLoadState('load');
  await page.waitForSelector('tr[data-server="notes"] td.state:text("ready")');
  await page.click('#tab-chat');
  await page.fill('#prompt', 'What is the weather in Paris?');
  await page.press('#prompt', 'Enter');
  await page.click('.ask.confirm button[data-answer="allow_once"]');
  await page.waitForSelector('#log .msg.assistant.done');
  obs.answer = await page.innerText('#log .msg.assistant');
});
