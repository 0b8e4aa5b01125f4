// host web: the cards of the runtime's questions (ui.confirm.request,
// ui.prompt.request, ui.open_url.request). Every string in them is the
// runtime's, a server's or an app's: text only; a link is made only from
// an http(s) URL the runtime asks the user to open.
import { safeURL } from './markdown.js';

// askCards returns the card builders, with the page's el (text-only DOM)
// and answer (the answer to a runtime request, by its id).
export function askCards({ el, answer }) {
  const optionLabels = {
    allow_once: 'Allow once',
    always_tool: 'Always allow this tool',
    always_server: 'Always allow this server',
    deny: 'Deny',
    deny_with_reason: 'Deny with a reason…',
    yes: 'Yes',
    no: 'No',
  };

  function confirmCard(id, p) {
    const card = el('div', { class: 'ask confirm', role: 'dialog', 'aria-label': p.title || 'confirm' });
    card.append(el('h2', { text: p.title || 'Confirm' }));
    const t = p.tool;
    if (t) {
      card.append(el('div', { class: 'identity' }, 'server ', el('b', { text: t.server }), '  tool ', el('b', { text: t.tool }),
        t.public_name ? el('span', { class: 'muted', text: '  (' + t.public_name + ')' }) : null));
    }
    if (p.app) card.append(el('p', { class: 'app-ask', text: 'Asked by the app of ' + p.app.server + '/' + p.app.tool + ', not by the model.' }));
    if (p.message) card.append(el('p', { text: p.message }));
    if (p.app && p.app.text) card.append(el('div', { class: 'label', text: "the app's message" }), el('pre', { class: 'app-text', text: p.app.text }));
    for (const u of [p.app, p.elicitation]) {
      if (u && u.url) card.append(el('div', {}, el('div', { class: 'url', text: shownURL(u.url, u) }), hostLine(u)));
    }
    if (t) {
      card.append(el('div', { class: 'label', text: 'arguments' + (t.arguments_truncated ? ' (truncated)' : '') }), el('pre', { class: 'args', text: t.arguments || '' }));
      if (t.changed) card.append(el('p', { class: 'warn', text: 'This tool changed since you always allowed it' + (t.changed_fields ? ': ' + t.changed_fields.join(', ') : '') + '.' }));
      const claims = el('div', { class: 'claims' }, el('div', { class: 'label', text: 'claimed by the server, untrusted' }));
      if (t.title) claims.append(el('div', { text: 'title: ' + t.title }));
      if (t.description) claims.append(el('div', { class: 'desc', text: t.description }));
      const h = hints(t.annotations);
      if (h) claims.append(el('div', { class: 'muted hints', text: 'hints: ' + h }));
      card.append(claims);
    }
    if (p.login) card.append(el('p', { text: 'server ' + p.login.server + (p.login.issuer ? ' at ' + (p.login.issuer_display || p.login.issuer) : '') }));
    const buttons = el('div', { class: 'buttons' });
    for (const o of p.options || []) {
      buttons.append(el('button', {
        type: 'button', class: 'opt-' + o, 'data-answer': o, text: optionLabels[o] || o,
        onclick: () => {
          // An app's message the user agrees to send becomes the user's:
          // the bridge shows it as such in every page (a user event).
          if (o !== 'deny_with_reason') return answer(id, { answer: o });
          const input = el('input', { type: 'text', class: 'reason-input', placeholder: 'why (the model sees this)' });
          const form = el('form', { class: 'reason-form', onsubmit: (ev) => { ev.preventDefault(); answer(id, { answer: o, reason: input.value }); } },
            input, el('button', { type: 'submit', text: 'Deny' }));
          buttons.replaceWith(form);
          input.focus();
        },
      }));
    }
    card.append(buttons);
    return card;
  }

  // shownURL is what to show of a URL the runtime sent: its display form
  // (display_url: the host in ASCII form, so a look-alike host reads as the
  // punycode it is), never a host read from the raw URL, which is only opened.
  function shownURL(url, d) {
    return (d && d.display_url) || url || '';
  }

  // hostLine names the host of a URL the runtime sent (display_host), or
  // nothing when the runtime sent none.
  function hostLine(d) {
    return d && d.display_host ? el('div', { class: 'url-host', text: 'host: ' + d.display_host }) : null;
  }

  // hints names the hints a server claims about a tool, in host chat's words.
  function hints(a) {
    if (!a) return '';
    const h = [];
    if (a.read_only_hint) h.push('read-only');
    if (a.destructive_hint) h.push('destructive');
    if (a.open_world_hint) h.push('open world');
    return h.join(', ');
  }

  function linkTo(url, text, onclick) {
    const href = safeURL(url);
    if (!href) return el('span', { class: 'error', text: 'not an http(s) URL: ' + url });
    return el('a', { href, target: '_blank', rel: 'noopener noreferrer', text, onclick });
  }

  function promptCard(id, p) {
    const input = el('input', { type: 'text', class: 'prompt-input', placeholder: 'paste here' });
    return el('div', { class: 'ask prompt', role: 'dialog' },
      el('h2', { text: p.title || 'Question' }),
      el('p', { text: p.message || '' }),
      p.url ? el('p', {}, linkTo(p.url, 'Open the page'), el('div', { class: 'url', text: shownURL(p.url, p) }), hostLine(p)) : null,
      el('form', { onsubmit: (ev) => { ev.preventDefault(); answer(id, { value: input.value }); } },
        input, el('button', { type: 'submit', text: 'OK' }),
        el('button', { type: 'button', text: 'Cancel', onclick: () => answer(id, { value: '', cancelled: true }) })));
  }

  function openURLCard(id, p) {
    const server = p.server || 'a server';
    const what = p.purpose === 'login' ? 'the login page of ' + server : p.purpose === 'app_link' ? 'a link for the app of ' + server : 'a page for ' + server;
    return el('div', { class: 'ask open-url', role: 'dialog' },
      el('h2', { text: 'Open ' + what + '?' }),
      p.message ? el('p', { text: p.message }) : null,
      el('div', { class: 'url', text: shownURL(p.url, p) }),
      hostLine(p),
      el('div', { class: 'buttons' },
        linkTo(p.url, 'Open in a new tab', () => answer(id, { opened: true })),
        el('button', { type: 'button', text: 'Cancel', onclick: () => answer(id, { opened: false }) })));
  }

  return { confirmCard, promptCard, openURLCard };
}
