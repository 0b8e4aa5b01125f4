// host web: a server's elicitation (ui.elicit.request) as a form built from
// its requested schema: text, email, URL and date fields, numbers, a
// checkbox for booleans, a select for single choices (enum, enumNames or
// oneOf with titles) and checkboxes for multiple ones. Every title,
// description and choice is the server's text: shown as text only. The
// runtime checks the answer against the schema and asks again, naming the
// fields that failed (shown under them), when it does not match.
'use strict';

(() => {
  const H = window.hostWeb;

  // choices returns [{value, label}] of a single- or multiple-choice
  // property, or null.
  function choices(s) {
    const src = s.type === 'array' ? s.items || {} : s;
    if (Array.isArray(src.enum)) {
      const names = Array.isArray(src.enumNames) ? src.enumNames : [];
      return src.enum.map((v, i) => ({ value: v, label: String(names[i] !== undefined ? names[i] : v) }));
    }
    const alts = src.oneOf || src.anyOf;
    if (Array.isArray(alts) && alts.every((a) => a && 'const' in a)) return alts.map((a) => ({ value: a.const, label: String(a.title || a.const) }));
    return null;
  }

  function field(name, s, required, value, invalid) {
    const id = 'elicit-' + Math.random().toString(36).slice(2) + '-' + name.replace(/[^A-Za-z0-9_-]/g, '_');
    const wrap = H.el('div', { class: 'elicit-field', 'data-field': name });
    const label = H.el('label', { for: id, text: (s.title || name) + (required ? ' *' : '') });
    const list = choices(s);
    let input;
    let read;
    if (s.type === 'boolean') {
      input = H.el('input', { id, type: 'checkbox' });
      input.checked = value === true;
      read = () => input.checked;
    } else if (s.type === 'array' && list) {
      input = H.el('div', { id, class: 'elicit-multi' });
      const chosen = new Set(Array.isArray(value) ? value : []);
      const boxes = list.map((c) => {
        const box = H.el('input', { type: 'checkbox' });
        box.checked = chosen.has(c.value);
        input.append(H.el('label', { class: 'choice' }, box, ' ' + c.label));
        return [box, c.value];
      });
      read = () => boxes.filter(([b]) => b.checked).map(([, v]) => v);
    } else if (list) {
      input = H.el('select', { id });
      if (!required) input.append(H.el('option', { value: '', text: '' }));
      list.forEach((c, i) => {
        const o = H.el('option', { value: String(i), text: c.label });
        if (c.value === value) o.selected = true;
        input.append(o);
      });
      read = () => (input.value === '' ? undefined : list[Number(input.value)].value);
    } else {
      const kinds = { email: 'email', uri: 'url', date: 'date', 'date-time': 'datetime-local' };
      const numeric = s.type === 'number' || s.type === 'integer';
      input = H.el('input', { id, type: numeric ? 'number' : kinds[s.format] || 'text', step: s.type === 'integer' ? '1' : numeric ? 'any' : undefined });
      if (value !== undefined && value !== null) input.value = String(value);
      read = () => {
        const v = input.value;
        if (v === '') return undefined;
        if (s.type === 'integer') return parseInt(v, 10);
        if (s.type === 'number') return Number(v);
        return v;
      };
    }
    wrap.append(label, input);
    if (s.description) wrap.append(H.el('div', { class: 'muted desc', text: s.description }));
    if (invalid) wrap.append(H.el('div', { class: 'error', text: invalid }));
    return { wrap, read };
  }

  window.elicitCard = (id, p) => {
    const schema = p.requested_schema || {};
    const props = schema.properties || {};
    const required = new Set(schema.required || []);
    const invalid = {};
    for (const f of p.invalid || []) invalid[f.field] = (invalid[f.field] ? invalid[f.field] + '; ' : '') + f.message;
    const fields = Object.entries(props).map(([name, s]) => {
      const prev = p.content && name in p.content ? p.content[name] : s.default;
      return [name, field(name, s || {}, required.has(name), prev, invalid[name])];
    });
    const form = H.el('form', {
      class: 'elicit-form',
      onsubmit: (ev) => {
        ev.preventDefault();
        const content = {};
        for (const [name, f] of fields) {
          const v = f.read();
          if (v !== undefined) content[name] = v;
        }
        H.answer(id, { action: 'accept', content });
      },
    });
    for (const [, f] of fields) form.append(f.wrap);
    form.append(H.el('div', { class: 'buttons' },
      H.el('button', { type: 'submit', class: 'opt-allow_once', text: 'Send' }),
      H.el('button', { type: 'button', text: 'Decline', onclick: () => H.answer(id, { action: 'decline' }) }),
      H.el('button', { type: 'button', text: 'Cancel', onclick: () => H.answer(id, { action: 'cancel' }) })));
    return H.el('div', { class: 'ask elicit', role: 'dialog' },
      H.el('h2', { text: (p.server || 'A server') + ' asks for information' }),
      H.el('div', { class: 'label', text: "the server's request, untrusted" }),
      H.el('p', { text: p.message || '' }),
      p.attempt ? H.el('p', { class: 'warn', text: 'The last answer did not match the form (try ' + p.attempt + ').' }) : null,
      invalid[''] ? H.el('p', { class: 'error', text: invalid[''] }) : null,
      form);
  };
})();
