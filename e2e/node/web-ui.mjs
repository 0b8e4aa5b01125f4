// A person using `host web`, for mcp-host's end-to-end tests: Debian's
// chromium, driven by playwright-core, opens the printed address, looks at
// /mcp, sends prompts to the scripted model, answers the permission prompts
// in the page (allow, deny), watches the MCP App of a tool call render in its
// sandboxed frame, uses the app (allow, deny), and checks that a hostile app
// frame can read neither the page nor another app.
//
//   CHROMIUM=/usr/bin/chromium node web-ui.mjs <address> <result.json> <screenshot.png>
//
// It writes what it observed, step by step, to result.json ({"error": ...}
// and the steps so far when one fails; the exit code says which).
import { writeFileSync } from 'node:fs';
import { launchChromium } from './chromium.mjs';

const [address, resultFile, screenshot] = process.argv.slice(2);
if (!address || !resultFile || !screenshot) {
  console.error('usage: web-ui.mjs <address> <result.json> <screenshot.png>');
  process.exit(2);
}
const obs = { steps: [] };
const t0 = Date.now();
const step = (name) => { obs.steps.push(name + ' @' + ((Date.now() - t0) / 1000).toFixed(1) + 's'); console.log('step:', name); };
let browser;
try {
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
  const page = await context.newPage();
  page.setDefaultTimeout(45_000);
  obs.console = [];
  page.on('console', (m) => obs.console.push(m.type() + ': ' + m.text()));
  page.on('pageerror', (e) => obs.console.push('pageerror: ' + e.message));

  step('open');
  await page.goto(address);
  obs.cleanURL = page.url();
  const cookie = (await context.cookies()).find((c) => c.name === 'mcp_host_web');
  obs.cookie = cookie ? { httpOnly: cookie.httpOnly, sameSite: cookie.sameSite } : null;
  await page.waitForSelector('#conn:text("connected")');

  step('mcp view');
  await page.click('#tab-mcp');
  await page.waitForSelector('tr[data-server="everything"] td.state:text("ready")', { timeout: 90_000 });
  await page.waitForSelector('tr[data-server="basic"] td.state:text("ready")', { timeout: 90_000 });
  await page.waitForSelector('tr[data-server="preact"] td.state:text("ready")', { timeout: 90_000 });
  await page.waitForSelector('tr[data-server="notes"] td.state:text("auth_required")', { timeout: 90_000 });
  await page.waitForSelector('tr[data-server="proj"] td.state:text("approval_required")');
  obs.servers = await page.$$eval('#servers tbody tr', (rows) => rows.map((r) => r.innerText.replace(/\s+/g, ' ')));

  step('approve a project server');
  obs.approval = await page.innerText('tr[data-server="proj"] td.details');
  await page.click('tr[data-server="proj"] button.approve');
  await page.waitForSelector('tr[data-server="proj"] td.state:text("ready")');

  step('log in');
  await page.click('tr[data-server="notes"] button.login');
  await page.waitForSelector('.ask.confirm');
  obs.loginConfirm = await page.innerText('.ask.confirm');
  await page.click('.ask.confirm button[data-answer="yes"]');
  await page.waitForSelector('.ask.open-url a');
  obs.openURL = await page.innerText('.ask.open-url');
  const [popup] = await Promise.all([context.waitForEvent('page'), page.click('.ask.open-url a')]);
  await popup.waitForLoadState('load');
  obs.loginLanding = popup.url().split('?')[0] + ': ' + (await popup.innerText('body'));
  await page.waitForSelector('tr[data-server="notes"] td.state:text("ready")');
  await popup.close();
  obs.serversAfter = await page.$$eval('#servers tbody tr', (rows) => rows.map((r) => r.innerText.replace(/\s+/g, ' ')));
  await page.click('#tab-chat');

  // Count how the first answer arrives: several text pieces is streaming.
  await page.evaluate(() => {
    window.__pieces = 0;
    new MutationObserver((ms) => {
      for (const m of ms) if (m.target.classList && m.target.classList.contains('text')) window.__pieces += m.addedNodes.length;
    }).observe(document.getElementById('log'), { childList: true, subtree: true });
  });

  const prompt = async (text) => {
    await page.fill('#prompt', text);
    await page.press('#prompt', 'Enter');
  };
  const lastAnswer = () => page.$eval('#log .msg.assistant:last-of-type', (n) => n.innerText);

  step('allow');
  await prompt('please echo hello');
  await page.waitForSelector('.ask.confirm');
  obs.confirmAllow = await page.innerText('.ask.confirm');
  await page.click('.ask.confirm button[data-answer="allow_once"]');
  await page.waitForSelector('#log .msg.assistant.done:has-text("The server echoed")');
  obs.allowAnswer = await lastAnswer();
  obs.pieces = await page.evaluate(() => window.__pieces);

  step('deny');
  await prompt('echo again');
  await page.waitForSelector('.ask.confirm');
  await page.click('.ask.confirm button[data-answer="deny"]');
  await page.waitForSelector('#log .msg.assistant.done .call-status.denied');
  obs.denyAnswer = await lastAnswer();

  step('elicitation');
  await prompt('ask me something');
  await page.waitForSelector('.ask.confirm');
  await page.click('.ask.confirm button[data-answer="allow_once"]');
  await page.waitForSelector('.ask.elicit');
  obs.elicitForm = await page.innerText('.ask.elicit');
  await page.fill('.ask.elicit [data-field="name"] input', 'Ada');
  await page.click('.ask.elicit button[type="submit"]');
  await page.waitForSelector('#log .msg.assistant.done:has-text("Thanks, Ada")');
  obs.elicitAnswer = await lastAnswer();

  step('app renders');
  await prompt('what time is it?');
  await page.waitForSelector('.ask.confirm');
  await page.click('.ask.confirm button[data-answer="allow_once"]');
  await page.waitForSelector('iframe.app-frame');
  obs.frameSandbox = await page.getAttribute('iframe.app-frame', 'sandbox');
  obs.frameSrc = await page.getAttribute('iframe.app-frame', 'src');
  const app = page.frameLocator('iframe.app-frame').first();
  const time = app.locator('#server-time');
  await time.filter({ hasText: /^\d{4}-\d\d-\d\dT/ }).waitFor();
  obs.appTime1 = await time.innerText();

  step('app call allowed');
  await app.locator('#get-time-btn').click();
  await page.waitForSelector('.ask.confirm .app-ask');
  obs.appConfirm = await page.innerText('.ask.confirm');
  await page.click('.ask.confirm button[data-answer="allow_once"]');
  const before = obs.appTime1;
  for (let i = 0; i < 200; i++) {
    obs.appTime2 = await time.innerText();
    if (obs.appTime2 !== before) break;
    await page.waitForTimeout(100);
  }
  await page.locator('#log').evaluate((n) => { n.scrollTop = n.scrollHeight; });
  await page.screenshot({ path: screenshot });

  step('app call denied');
  await app.locator('#get-time-btn').click();
  await page.waitForSelector('.ask.confirm .app-ask');
  await page.click('.ask.confirm button[data-answer="deny"]');
  await time.filter({ hasText: '[ERROR]' }).waitFor();
  obs.appTime3 = await time.innerText();

  step('app message');
  await app.locator('#send-message-btn').click();
  await page.waitForSelector('.ask.confirm .app-text');
  obs.appMessageConfirm = await page.innerText('.ask.confirm');
  await page.click('.ask.confirm button[data-answer="yes"]');
  await page.waitForSelector('#log .msg.assistant.done:has-text("Thanks for the message from the app")');
  obs.appMessageUser = await page.innerText('#log .msg.user.from-app');

  step('app link');
  await app.locator('#open-link-btn').click();
  await page.waitForSelector('.ask.confirm .url');
  obs.appLinkConfirm = await page.innerText('.ask.confirm');
  await page.click('.ask.confirm button[data-answer="yes"]');
  await page.waitForSelector('.ask.open-url');
  obs.appLinkOpen = await page.innerText('.ask.open-url');
  await page.click('.ask.open-url button:text("Cancel")');
  for (let i = 0; i < 100 && !obs.console.some((l) => l.includes('Open link request rejected')); i++) await page.waitForTimeout(100);
  obs.appLinkRejected = obs.console.some((l) => l.includes('Open link request rejected'));

  step('second app');
  await prompt('and in preact?');
  await page.waitForSelector('.ask.confirm');
  await page.click('.ask.confirm button[data-answer="allow_once"]');
  await page.waitForSelector('#log .msg.assistant.done:has-text("The preact app shows it too")');
  const preact = page.frameLocator('iframe.app-frame').nth(1);
  await preact.locator('code').filter({ hasText: /^\d{4}-\d\d-\d\dT/ }).waitFor();
  obs.preactTime = await preact.locator('code').innerText();
  obs.frames = await page.$$eval('iframe.app-frame', (fs) => fs.map((f) => new URL(f.src).origin));

  step('app call of the model denied');
  await prompt('the time once more');
  await page.waitForSelector('.ask.confirm');
  await page.click('.ask.confirm button[data-answer="deny"]');
  for (let i = 0; i < 150 && !obs.console.some((l) => l.includes('Tool call cancelled')); i++) await page.waitForTimeout(100);
  obs.appCancelled = obs.console.filter((l) => l.includes('Tool call cancelled')).join(' | ');
  obs.framesAfterDeny = await page.$$eval('iframe.app-frame', (fs) => fs.length);
  obs.deniedAppAnswer = await lastAnswer();

  step('hostile frame');
  obs.hostile = await page.evaluate(async () => {
    const html = `<script>
      const out = {};
      const tryIt = (k, f) => { try { out[k] = 'read: ' + String(f()); } catch (e) { out[k] = 'blocked: ' + e.name; } };
      tryIt('parentDocument', () => parent.document.title);
      tryIt('parentLocation', () => parent.location.href);
      tryIt('otherApp', () => parent.frames[0].document.body.innerHTML.length);
      tryIt('cookie', () => document.cookie);
      tryIt('storage', () => localStorage.length);
      fetch(${JSON.stringify(location.origin)} + '/api/call', { method: 'POST', credentials: 'include',
        headers: { 'Content-Type': 'application/json' }, body: '{"method":"mcp.list"}' })
        .then((r) => r.text()).then((t) => { out.fetchPage = 'read: ' + t.slice(0, 80); }, (e) => { out.fetchPage = 'blocked: ' + e.name; })
        .finally(() => parent.postMessage({ hostileReport: out }, '*'));
    </script>`;
    const r = await fetch('/api/frame', {
      method: 'POST', headers: { 'Content-Type': 'application/json' },
      // It even declares the page's origin: the CSP lets the request go,
      // and the bridge still refuses it (no cookie, Origin null).
      body: JSON.stringify({ html, csp: { connect_domains: [location.origin] } }),
    });
    const { url } = await r.json();
    const report = new Promise((resolve) => {
      window.addEventListener('message', (ev) => { if (ev.data && ev.data.hostileReport) resolve(ev.data.hostileReport); });
    });
    const f = document.createElement('iframe');
    f.setAttribute('sandbox', 'allow-scripts');
    f.src = url;
    document.body.append(f);
    return await Promise.race([report, new Promise((resolve) => setTimeout(() => resolve({ timeout: true }), 20000))]);
  });
  step('always allow');
  const waitNewTime = async (old) => {
    for (let i = 0; i < 200; i++) {
      const t = await time.innerText();
      if (t !== old && /^\d{4}-/.test(t)) return t;
      await page.waitForTimeout(100);
    }
    return await time.innerText();
  };
  let last = await time.innerText();
  await app.locator('#get-time-btn').click();
  await page.waitForSelector('.ask.confirm .app-ask');
  await page.click('.ask.confirm button[data-answer="always_tool"]');
  last = await waitNewTime(last);
  obs.alwaysTime1 = last;
  await app.locator('#get-time-btn').click();
  obs.alwaysTime2 = await waitNewTime(last);
  obs.askedAfterAlways = await page.$$eval('.ask', (a) => a.length);

  step('done');
} catch (e) {
  obs.error = String((e && e.stack) || e);
  process.exitCode = 1;
} finally {
  writeFileSync(resultFile, JSON.stringify(obs, null, 2));
  if (browser) await browser.close();
}
