// Reopening `host web`'s address, for mcp-host's end-to-end tests: Debian's
// chromium, driven by playwright-core, has a conversation in one tab (a
// tool call allowed, an answer, a second prompt whose call waits for
// permission), then opens the printed address again in a new tab and
// records what that tab shows; the question is answered there, and both
// tabs' transcripts are compared.
//
//   CHROMIUM=/usr/bin/chromium node web-reopen.mjs <address> <result.json>
import { onHostWebPage } from './chromium.mjs';

// transcript is what a tab's conversation shows: each message in order,
// its kind and its text.
const transcript = (page) => page.$$eval('#log > .msg', (ms) => ms.map((m) => ({
  kind: m.classList.contains('user') ? 'user' : 'assistant',
  text: m.innerText.trim(),
})));

await onHostWebPage(async (page, obs) => {
  const address = process.argv[2];
  await page.click('#tab-mcp');
  await page.waitForSelector('tr[data-server="local"] td.state:text("ready")');
  await page.click('#tab-chat');
  await page.fill('#prompt', 'count <img src=x onerror="document.title=1"> these words');
  await page.press('#prompt', 'Enter');
  await page.click('.ask.confirm button[data-answer="allow_once"]');
  await page.waitForSelector('#log .msg.assistant.done');
  await page.fill('#prompt', 'and once more');
  await page.press('#prompt', 'Enter');
  await page.waitForSelector('.ask.confirm');
  await page.waitForFunction(() => document.querySelectorAll('#log .call').length === 2);
  obs.first = await transcript(page);

  // The printed address again, in a new tab of the same browser.
  const again = await page.context().newPage();
  again.setDefaultTimeout(45_000);
  await again.goto(address);
  await again.waitForSelector('#conn:text("connected")');
  await again.waitForSelector('.ask.confirm');
  await again.waitForTimeout(1500); // Markdown is rendered once a text block is complete
  obs.reopened = await transcript(again);
  obs.reopenedCalls = await again.$$eval('#log .call', (cs) => cs.map((c) => c.innerText.trim()));
  obs.reopenedAsks = await again.$$eval('.ask.confirm', (a) => a.length);
  obs.reopenedElements = await again.$$eval('#log img, #log b, #log script', (n) => n.map((e) => e.outerHTML));
  obs.reopenedStrong = await again.$$eval('#log strong', (n) => n.map((e) => e.innerText));

  // Answered in the new tab: both tabs see the run end.
  await again.click('.ask.confirm button[data-answer="allow_once"]');
  await again.waitForFunction(() => document.querySelectorAll('#log .msg.assistant.done').length === 2);
  await page.waitForFunction(() => document.querySelectorAll('#log .msg.assistant.done').length === 2);
  await page.waitForTimeout(1500);
  obs.firstAfter = await transcript(page);
  obs.reopenedAfter = await transcript(again);
});
