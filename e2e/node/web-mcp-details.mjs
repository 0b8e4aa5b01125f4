// The /mcp tab of `host web` with a server the sandbox refused, for
// mcp-host's end-to-end tests: Debian's chromium, driven by playwright-core,
// opens /mcp, waits for the refused server's error and records what its row
// says (the sandbox, the hint naming the refused path and the grant, the
// last error), then opens the details of a running server (its stderr tail).
//
//   CHROMIUM=/usr/bin/chromium node web-mcp-details.mjs <address> <result.json>
import { onHostWebPage } from './chromium.mjs';

// detail is the text of a row's detail line named name, or "".
const detail = (page, server, name) =>
  page.$eval(`tr[data-server="${server}"] [data-detail="${name}"]`, (n) => n.innerText).catch(() => '');

await onHostWebPage(async (page, obs) => {
  await page.click('#tab-mcp');
  await page.waitForSelector('tr[data-server="probe"] td.state:text("error")', { timeout: 90_000 });
  obs.row = await page.innerText('tr[data-server="probe"]');
  obs.sandbox = await detail(page, 'probe', 'sandbox');
  obs.hint = await detail(page, 'probe', 'sandbox-hint');
  obs.lastError = await detail(page, 'probe', 'last-error');

  await page.waitForSelector('tr[data-server="noisy"] td.state:text("ready")', { timeout: 90_000 });
  await page.click('tr[data-server="noisy"] button.details');
  await page.waitForSelector('tr[data-server="noisy"] [data-detail="stderr"]');
  obs.noisyStderr = await detail(page, 'noisy', 'stderr');
  obs.noisySandbox = await detail(page, 'noisy', 'sandbox');
});
