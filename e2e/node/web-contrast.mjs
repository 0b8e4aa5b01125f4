// Text contrast in `host web`, for mcp-host's end-to-end tests: Debian's
// chromium, driven by playwright-core, brings the page into its main states
// (a conversation with the user's and the model's messages, a message from
// a server's prompt, a tool call waiting for permission and answered, a
// failed run, the /mcp tab with a server's details) and in each measures
// every visible text: the WCAG contrast ratio of its colour against the
// background it is drawn on (the first opaque background of its ancestors,
// translucent ones composed over it).
//
//   CHROMIUM=/usr/bin/chromium node web-contrast.mjs <address> <result.json>
//
// result.json holds, per state, every text measured: its element, the
// ratio, the minimum WCAG AA asks of it (4.5, or 3 for large text) and the
// colours.
import { onHostWebPage } from './chromium.mjs';

// measure runs in the page: one entry per visible text node.
function measure() {
  const parse = (c) => {
    const m = /rgba?\(([^)]*)\)/.exec(c || '');
    if (!m) return null;
    const p = m[1].split(/[\s,/]+/).filter(Boolean).map(Number);
    return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
  };
  const over = (top, under) => ({
    r: top.r * top.a + under.r * (1 - top.a),
    g: top.g * top.a + under.g * (1 - top.a),
    b: top.b * top.a + under.b * (1 - top.a),
    a: 1,
  });
  const lum = (c) => {
    const ch = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * ch(c.r) + 0.7152 * ch(c.g) + 0.0722 * ch(c.b);
  };
  // background is what el's text is drawn on: its own and its ancestors'
  // backgrounds down to the first opaque one (the canvas is white).
  const background = (el) => {
    const layers = [];
    for (let n = el; n && n.nodeType === 1; n = n.parentElement) {
      const c = parse(getComputedStyle(n).backgroundColor);
      if (c && c.a > 0) {
        layers.push(c);
        if (c.a >= 1) break;
      }
    }
    let bg = { r: 255, g: 255, b: 255, a: 1 };
    for (const c of layers.reverse()) bg = over(c, bg);
    return bg;
  };
  const opacity = (el) => {
    let o = 1;
    for (let n = el; n && n.nodeType === 1; n = n.parentElement) o *= Number(getComputedStyle(n).opacity);
    return o;
  };
  const name = (el) => {
    const parts = [];
    for (let n = el; n && n.nodeType === 1 && parts.length < 4 && n !== document.body; n = n.parentElement) {
      parts.unshift(n.tagName.toLowerCase() + (n.id ? '#' + n.id : '') + [...n.classList].map((c) => '.' + c).join(''));
    }
    return parts.join(' > ');
  };
  const hex = (c) => '#' + [c.r, c.g, c.b].map((v) => Math.round(v).toString(16).padStart(2, '0')).join('');
  const out = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let t = walk.nextNode(); t; t = walk.nextNode()) {
    const text = t.textContent.trim();
    const el = t.parentElement;
    if (!text || !el || el.closest('script, style, template, datalist, option')) continue;
    if (!el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) continue;
    const range = document.createRange();
    range.selectNodeContents(t);
    const box = range.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) continue;
    // WCAG 1.4.3 asks nothing of an inactive control's text.
    if (el.closest('button:disabled, input:disabled, textarea:disabled')) continue;
    const s = getComputedStyle(el);
    const bg = background(el);
    const fg = parse(s.color);
    fg.a *= opacity(el);
    const shown = over(fg, bg);
    const [hi, lo] = [lum(shown), lum(bg)].sort((a, b) => b - a);
    const size = parseFloat(s.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(s.fontWeight) >= 700);
    out.push({
      element: name(el), text: text.slice(0, 60), ratio: Math.round(((hi + 0.05) / (lo + 0.05)) * 100) / 100,
      need: large ? 3 : 4.5, color: hex(shown), background: hex(bg), size,
    });
  }
  return out;
}

await onHostWebPage(async (page, obs) => {
  obs.states = {};
  const check = async (state) => { obs.states[state] = await page.evaluate(measure); };
  const send = async (text) => {
    await page.fill('#prompt', text);
    await page.press('#prompt', 'Enter');
  };
  const done = (n) => page.waitForFunction((k) => document.querySelectorAll('#log .msg.assistant.done').length === k, n);
  await page.click('#tab-mcp');
  await page.waitForSelector('tr[data-server="everything"] td.state:text("ready")', { timeout: 90_000 });
  await page.click('#tab-chat');
  await check('start');

  await send('hello there');
  await done(1);
  await page.waitForSelector('#log .text.md blockquote');
  await check('conversation');

  await send('/everything:completable-prompt department=Sales name=Eve');
  await page.waitForSelector('.msg.user.from-prompt');
  await done(2);
  await check('prompt message');

  await send('echo please');
  await page.waitForSelector('.ask.confirm');
  await page.waitForSelector('#log .call-status.asked');
  // Enter in the message box while the question waits shows the hint.
  await send('and then?');
  await page.waitForSelector('#ask-hint:not([hidden])');
  await check('permission question');
  await page.click('.ask.confirm button[data-answer="allow_once"]');
  await done(3);
  await check('tool call');

  await send('fail please');
  await done(4);
  await page.waitForSelector('#log .msg.assistant.status-failed .error');
  await check('error');

  await page.click('#tab-mcp');
  await page.waitForSelector('tr[data-server="broken"] td.state:text("error")', { timeout: 90_000 });
  await check('/mcp');
  const details = await page.$('tr[data-server="everything"] button.details');
  if (details) {
    await details.click();
    await page.waitForSelector('tr[data-server="everything"] [data-detail="command"]');
    await check('/mcp details');
  }
});
