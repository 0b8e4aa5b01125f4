// Prompts and attachments in `host web`, for mcp-host's end-to-end tests:
// Debian's chromium, driven by playwright-core, picks a server's prompt from
// the "/" menu, fills its arguments with the server's completions (the
// second narrowed by the first), runs it, runs another typed whole, and
// attaches a resource from a template (its variable completed) to a message,
// and watches it change.
//
//   CHROMIUM=/usr/bin/chromium node web-primitives.mjs <address> <result.json>
//
// It writes what it observed to result.json ({"error": ...} and the steps so
// far when one fails).
import { writeFileSync } from 'node:fs';
import { launchChromium } from './chromium.mjs';

const [address, resultFile] = process.argv.slice(2);
const obs = { steps: [], console: [] };
const step = (name) => { obs.steps.push(name); console.log('step:', name); };
// options waits for the completions of field sel and returns them.
const options = async (page, sel, want) => {
  await page.waitForFunction(([s, w]) => {
    const f = document.querySelector(s);
    return f && f.list && [...f.list.options].map((o) => o.value).join(',') === w;
  }, [sel, want]);
  return want;
};
let browser;
try {
  browser = await launchChromium();
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  page.setDefaultTimeout(45_000);
  page.on('console', (m) => obs.console.push(m.type() + ': ' + m.text()));
  page.on('pageerror', (e) => obs.console.push('pageerror: ' + e.message));
  await page.goto(address);
  await page.waitForSelector('#conn:text("connected")');
  await page.click('#tab-mcp');
  await page.waitForSelector('tr[data-server="everything"] td.state:text("ready")', { timeout: 90_000 });
  await page.click('#tab-chat');

  step('slash menu');
  await page.fill('#prompt', '/everything:comp');
  await page.click('#slash-menu button[data-prompt="everything:completable-prompt"]');
  const form = '.prompt-args[data-prompt="everything:completable-prompt"]';
  await page.fill(form + ' input[name="department"]', 'Sa');
  obs.department = await options(page, form + ' input[name="department"]', 'Sales');
  await page.fill(form + ' input[name="department"]', 'Sales');
  await page.click(form + ' input[name="name"]');
  obs.names = await options(page, form + ' input[name="name"]', 'David,Eve,Frank');
  await page.fill(form + ' input[name="name"]', 'Eve');
  await page.click(form + ' button.run-prompt');
  await page.waitForSelector('.msg.user.from-prompt:has-text("Please promote Eve to the head of the Sales team.")');
  obs.fromPrompt = await page.innerText('.msg.user.from-prompt');
  await page.waitForSelector('#log :text("saw neither")');

  step('typed prompt');
  await page.fill('#prompt', '/everything:simple-prompt');
  await page.press('#prompt', 'Enter');
  await page.waitForSelector('#log :text("saw the simple prompt")');

  step('attach');
  await page.click('#attach');
  const tpl = '#attach-menu form.template[data-template="demo://resource/dynamic/text/{resourceId}"]';
  await page.fill(tpl + ' input[name="resourceId"]', '2');
  obs.resourceIds = await options(page, tpl + ' input[name="resourceId"]', '2');
  await page.click(tpl + ' button[type="submit"]');
  await page.waitForSelector('#attachments .chip[data-uri="demo://resource/dynamic/text/2"]');
  await page.click('#attachments .chip[data-uri="demo://resource/dynamic/text/2"] button.watch');
  await page.waitForSelector('#watched .watched[data-uri="demo://resource/dynamic/text/2"]');
  await page.fill('#prompt', 'what does it say?');
  await page.press('#prompt', 'Enter');
  await page.waitForSelector('#log :text("saw the attachment")');
  obs.attachedLine = await page.innerText('.msg.user:has(.attached)');

  step('watch');
  await page.fill('#prompt', 'turn on updates');
  await page.press('#prompt', 'Enter');
  await page.click('.ask.confirm button[data-answer="allow_once"]');
  await page.waitForSelector('#log :text("updates are on")');
  await page.waitForSelector('#watched .watched.changed[data-uri="demo://resource/dynamic/text/2"]');
  obs.watched = await page.innerText('#watched');
  step('done');
} catch (err) {
  obs.error = String(err && err.stack || err);
} finally {
  writeFileSync(resultFile, JSON.stringify(obs, null, 2));
  if (browser) await browser.close();
  process.exit(obs.error ? 1 : 0);
}
