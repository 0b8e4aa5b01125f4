// A person typing in `host web` when a permission prompt appears, for
// mcp-host's end-to-end tests: Debian's chromium, driven by playwright-core,
// sends a prompt from the message box and keeps typing there (the keyboard
// is not moved anywhere) while the confirm appears, then presses Enter. The
// call must stay waiting for an answer; a click on "Allow once" then allows it.
//
//   CHROMIUM=/usr/bin/chromium node web-confirm.mjs <address> <result.json>
//
// It writes what it saw to result.json ({"error": ...} when a step fails).
import { onHostWebPage } from './chromium.mjs';

await onHostWebPage(async (page, obs) => {
  await page.click('#tab-mcp');
  await page.waitForSelector('tr[data-server="local"] td.state:text("ready")');
  await page.click('#tab-chat');
  await page.click('#prompt');
  await page.keyboard.type('count the words');
  await page.keyboard.press('Enter');
  await page.waitForSelector('.ask.confirm');
  obs.confirmText = await page.innerText('.ask.confirm');
  // The person goes on typing their next message, then presses Enter.
  await page.keyboard.type('and then tell me a joke');
  await page.keyboard.press('Enter');
  await page.waitForTimeout(1500);
  obs.focused = await page.evaluate(() => {
    const a = document.activeElement;
    return a ? a.tagName.toLowerCase() + (a.id ? '#' + a.id : '') + (a.dataset.answer ? '[' + a.dataset.answer + ']' : '') : '';
  });
  obs.pendingAfterEnter = await page.$$eval('.ask.confirm', (a) => a.length);
  obs.statusAfterEnter = await page.$eval('#log .call-status', (n) => n.innerText).catch(() => '');
  obs.promptAfterEnter = await page.inputValue('#prompt');
  obs.hint = await page.$eval('#ask-hint', (n) => (n.hidden ? '' : n.innerText)).catch(() => '');
  if (obs.pendingAfterEnter === 0) throw new Error('the confirm was answered by typing: ' + obs.statusAfterEnter);
  await page.click('.ask.confirm button[data-answer="allow_once"]');
  await page.waitForSelector('#log .msg.assistant.done');
  obs.answer = await page.innerText('#log .msg.assistant');
  obs.pendingAfterClick = await page.$$eval('.ask.confirm', (a) => a.length);
});
