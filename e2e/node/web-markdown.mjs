// A model's Markdown in `host web`, for mcp-host's end-to-end tests:
// Debian's chromium, driven by playwright-core, sends a prompt and reads
// what the answer became in the page: its elements, what was shown as text,
// and whether anything the answer carried ran.
//
//   CHROMIUM=/usr/bin/chromium node web-markdown.mjs <address> <result.json>
import { onHostWebPage } from './chromium.mjs';

await onHostWebPage(async (page, obs) => {
  await page.fill('#prompt', 'show me');
  await page.press('#prompt', 'Enter');
  await page.waitForSelector('#log .msg.assistant.done .text.md');
  Object.assign(obs, await page.$eval('#log .msg.assistant', (n) => ({
    heading: (n.querySelector('h2') || {}).textContent || '',
    bold: (n.querySelector('strong') || {}).textContent || '',
    tableHeads: [...n.querySelectorAll('table th')].map((e) => e.textContent),
    tableCells: [...n.querySelectorAll('table td')].map((e) => e.textContent),
    fence: (n.querySelector('pre code') || {}).textContent || '',
    links: [...n.querySelectorAll('a')].map((a) => a.getAttribute('href') + ' ' + a.rel),
    elements: [...n.querySelectorAll('script, img, iframe, [onerror], [onclick]')].map((e) => e.outerHTML),
    text: n.innerText,
  })));
  obs.pwned = await page.evaluate(() => window.__pwned || 0);
}, { console: true });
