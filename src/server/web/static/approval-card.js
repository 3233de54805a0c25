/**
 * One pending call as seed 003's dialog: what it will do and how much is at
 * stake, the presentation, why it asks, and the buttons Deny (with a reason
 * the model sees), Allow once (the one primary action), For this session…
 * and Always… (each a second step that says what it covers), and Edit
 * arguments (checked by the server against the tool's schema; its error is
 * shown here). Calls sharing a group get one group box whose buttons, after
 * the calls, decide them all — never a dangerous one.
 */
import { api } from './api.js';
import { button, el } from './dom.js';
import { viewNode } from './view-render.js';

/**
 * Sends one decision; on success calls `done(result)`, on failure shows the server's message in `errorNode`.
 *
 * @example
 * await decide({ runId, body: { approved: true, tool_call_id: id, scope: 'once' }, errorNode, done });
 */
export async function decide({ runId, body, errorNode, container, done }) {
  // One decision at a time per card: a key pressed again while the first is on its way sends nothing.
  if (container.classList.contains('busy')) return;
  errorNode.textContent = '';
  container.classList.add('busy');
  for (const control of container.querySelectorAll('button, input, textarea')) control.disabled = true;
  try {
    const result = await api('POST', `/runs/${encodeURIComponent(runId)}/approve`, body);
    done(result, runId);
    return true;
  } catch (error) {
    errorNode.textContent = error instanceof Error ? error.message : String(error);
    return false;
  } finally {
    container.classList.remove('busy');
    for (const control of container.querySelectorAll('button, input, textarea')) control.disabled = false;
  }
}

/** How long a decision waits, undoable, before it is sent and the run goes on. */
export const UNDO_MS = 4000;

/**
 * A decision held for `UNDO_MS` before it is sent: the card (or group) is
 * hidden at once, a toast says what was decided, with Undo; undone, the card
 * comes back and nothing was sent, so nothing ran.
 *
 * @example
 * hold({ container: card, label: 'Allowed once: write_file', sendNow: () => decide({ … }) });
 */
function hold({ container, label, sendNow }) {
  const toasts = document.getElementById('toasts');
  if (toasts === null) return sendNow();
  // Once: a second Enter (or a repeated key) on a held card must not start a second timer that Undo would not stop.
  if (container.classList.contains('held') || container.closest('.held') !== null) return Promise.resolve();
  // A click that lands right after another card left the page was aimed at that card, not at the one now under the pointer.
  if (performance.now() - layoutChangedAt < SETTLE_CLICK_MS) return Promise.resolve();
  layoutChangedAt = performance.now();
  pendingHolds += 1;
  container.classList.add('held');
  // The inbox moves its selection off a held card: a second key pressed in a hurry must not land on the next one unseen.
  document.dispatchEvent(new CustomEvent('toolgate:held'));
  const undo = button('Undo', 'link undo', () => {
    clearTimeout(timer);
    pendingHolds -= 1;
    toast.remove();
    layoutChangedAt = performance.now();
    container.classList.remove('held');
    document.dispatchEvent(new CustomEvent('toolgate:held'));
    container.focus?.();
  });
  const toast = el('div', { className: 'toast', attrs: { role: 'status' } }, [el('span', { className: 'toast-text', text: `${label} · ` }), undo]);
  toasts.append(toast);
  const timer = setTimeout(() => {
    toast.remove();
    void sendNow()
      .then((sent) => {
        pendingHolds -= 1;
        container.classList.remove('held');
        // Refused (another approver decided it meanwhile, the run ended): said where the person looks, not on a card that is gone.
        if (sent === false) {
          const failed = el('div', { className: 'toast toast-error', attrs: { role: 'alert' } }, [el('span', { text: `Not sent — ${label}: ${container.querySelector(':scope > .error')?.textContent ?? 'the server refused it'}` }), button('Dismiss', 'link undo', () => failed.remove())]);
          toasts.append(failed);
        }
      });
  }, UNDO_MS);
  return Promise.resolve();
}

/** When a card last left or came back: clicks just after it are not taken (see `hold`). */
let layoutChangedAt = Number.NEGATIVE_INFINITY;
/** Decisions held and not yet sent: leaving the page then asks first. */
let pendingHolds = 0;
const SETTLE_CLICK_MS = 400;
window.addEventListener('beforeunload', (event) => {
  if (pendingHolds > 0) event.preventDefault();
});

/**
 * `Waiting 4 min · times out in 6 min`, from the request's times; empty when the server sent none.
 *
 * @example
 * waitingText('2026-12-06T10:00:00Z', null, Date.parse('2026-12-06T10:04:10Z')) // 'Waiting 4 min'
 */
export function waitingText(askedAt, timesOutAt, now) {
  const asked = Date.parse(String(askedAt ?? ''));
  if (Number.isNaN(asked)) return '';
  const span = (ms) => (ms < 60_000 ? 'less than a minute' : ms < 3_600_000 ? `${Math.floor(ms / 60_000)} min` : `${Math.floor(ms / 3_600_000)} h ${Math.floor((ms % 3_600_000) / 60_000)} min`);
  const waited = `Waiting ${span(Math.max(0, now - asked))}`;
  const ends = Date.parse(String(timesOutAt ?? ''));
  if (Number.isNaN(ends)) return waited;
  return ends <= now ? `${waited} · timing out now` : `${waited} · times out in ${span(ends - now)}`;
}

/**
 * The choices of what "Always" covers, narrowest first: this exact call,
 * then calls like it (the payload, value ''), then what the tool offers wider.
 */
function scopeChoices(view) {
  const offered = Array.isArray(view?.always_choices) ? view.always_choices.filter((choice) => typeof choice?.id === 'string') : [];
  if (offered.length === 0) return [];
  const exact = offered.filter((choice) => choice.id === 'exact');
  const wider = offered.filter((choice) => choice.id !== 'exact');
  return [...exact, { id: '', text: view?.always_scope ?? 'later calls like this one', rule: '' }, ...wider];
}

/** Radio buttons, one per choice, each with what it covers and the rule it amounts to; the first is checked. */
function scopeChooser(choices, name) {
  const group = `always-${name}`.replace(/[^A-Za-z0-9_-]/g, '_');
  const options = choices.map((choice, index) => {
    const input = el('input', { attrs: { type: 'radio', name: group, value: choice.id, ...(index === 0 ? { checked: '' } : {}) } });
    const id = `${group}-${index}`;
    input.id = id;
    const label = el('label', { attrs: { for: id } }, [
      el('span', { className: 'scope-text', text: choice.id === 'exact' ? `Only this exact call: ${choice.text}` : choice.id === '' ? `Calls like this one: ${choice.text}` : `Wider: ${choice.text}` }),
      ...(choice.rule === '' ? [] : [el('code', { className: 'scope-rule', text: choice.rule })]),
    ]);
    return el('div', { className: 'scope-choice' }, [input, label]);
  });
  return el('fieldset', { className: 'scope-chooser' }, [el('legend', { text: '“Always” lets calls run without asking from now on, until revoked (Remembered). Which calls?' }), ...options]);
}

/** What a decision is called in its toast. */
function decisionLabel(body, what) {
  if (body.approved === false) return `Denied: ${what}`;
  const narrowed = body.always_scope === 'exact' ? ' (this exact call)' : body.always_scope !== undefined ? ' (the wider rule)' : '';
  return `${body.scope === 'always' ? `Always allowed${narrowed}` : body.scope === 'session' ? 'Allowed for this session' : 'Allowed once'}: ${what}`;
}

/**
 * The arguments as the person edits them: one labelled field per argument of
 * an object — text in a text area (lines kept), a number in a number field,
 * true/false as a checkbox, anything else as JSON — or one JSON text area
 * when the arguments are not an object. `read()` builds the arguments back
 * (throwing a message that names the field), `reset()` puts the call's own back.
 */
function argumentFields(pending) {
  let original;
  try {
    original = JSON.parse(String(pending.tool_arguments ?? 'null'));
  } catch {
    original = String(pending.tool_arguments ?? '');
  }
  const node = el('div', { className: 'edit-fields' });
  if (original === null || typeof original !== 'object' || Array.isArray(original)) {
    const area = el('textarea', { className: 'edit-args', attrs: { rows: '8', spellcheck: 'false', 'aria-label': 'Arguments as JSON' } });
    const reset = () => (area.value = JSON.stringify(original, null, 2));
    reset();
    node.append(area);
    return {
      node,
      focus: () => area.focus(),
      reset,
      read: () => {
        try {
          return JSON.parse(area.value);
        } catch (error) {
          throw new Error(`The arguments are not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
        }
      },
    };
  }
  const inputs = [];
  for (const [name, value] of Object.entries(original)) {
    const kind = typeof value === 'string' ? 'text' : typeof value === 'number' ? 'number' : typeof value === 'boolean' ? 'boolean' : 'json';
    const id = `edit-${String(pending.run_id)}-${String(pending.tool_call_id)}-${name}`.replace(/[^A-Za-z0-9_-]/g, '_');
    let input;
    if (kind === 'boolean') input = el('input', { className: 'edit-field', attrs: { type: 'checkbox', id } });
    else if (kind === 'number') input = el('input', { className: 'edit-field', attrs: { type: 'number', step: 'any', id } });
    else if (kind === 'text' && !value.includes('\n') && value.length <= 120) input = el('input', { className: 'edit-field', attrs: { type: 'text', id, spellcheck: 'false' } });
    else input = el('textarea', { className: 'edit-field', attrs: { rows: String(Math.min(16, Math.max(3, String(kind === 'json' ? JSON.stringify(value, null, 2) : value).split('\n').length + 1))), id, spellcheck: 'false' } });
    input.dataset.name = name;
    input.dataset.kind = kind;
    inputs.push({ name, kind, input, value });
    node.append(el('label', { className: 'edit-field-label', text: `${name}${kind === 'json' ? ' (JSON)' : ''}`, attrs: { for: id } }), input);
  }
  const reset = () => {
    for (const { kind, input, value } of inputs) {
      if (kind === 'boolean') input.checked = value;
      else input.value = kind === 'json' ? JSON.stringify(value, null, 2) : String(value);
    }
  };
  reset();
  return {
    node,
    focus: () => inputs[0]?.input.focus(),
    reset,
    read: () => {
      const edited = {};
      for (const { name, kind, input } of inputs) {
        if (kind === 'boolean') edited[name] = input.checked;
        else if (kind === 'number') {
          if (input.value.trim() === '' || !Number.isFinite(Number(input.value))) throw new Error(`${name}: expected a number`);
          edited[name] = Number(input.value);
        } else if (kind === 'json') {
          try {
            edited[name] = JSON.parse(input.value);
          } catch (error) {
            throw new Error(`${name}: not valid JSON (${error instanceof Error ? error.message : String(error)})`);
          }
        } else edited[name] = input.value;
      }
      return edited;
    },
  };
}

/**
 * The dialog for one pending call. `onDecided(result)` runs after the server accepted a decision;
 * `onOpenRun(runId)` when the person asks for the run.
 *
 * @example
 * list.append(approvalCard(pending, { onDecided: refresh, onOpenRun: showRun }));
 */
export function approvalCard(pending, { onDecided, onOpenRun }) {
  const view = pending.presentation && typeof pending.presentation === 'object' ? pending.presentation : null;
  const card = el('article', { className: 'approval', attrs: { tabindex: '-1' } });
  card.dataset.key = `${pending.run_id}\u0000${pending.tool_call_id}`;
  const toolName = view?.tool ?? String(pending.tool_name ?? '');
  // What will happen comes first, when the tool says it in one line (the shell: Run X in DIR); the tool's name beside it.
  const headline = typeof view?.headline === 'string' && view.headline !== '' ? view.headline : null;
  const title = headline === null ? el('h2', { className: 'tool', text: toolName }) : el('h2', { className: 'headline', text: headline });
  if (view !== null && view.required === false) title.append(el('span', { className: 'optional', text: ' (optional)' }));
  const runLink = button(`run ${String(pending.run_id)}`, 'link run-link', () => onOpenRun(String(pending.run_id)));
  // How much is at stake, in words beside the colour.
  const risk = ['routine', 'notable', 'dangerous'].includes(view?.risk) ? view.risk : 'notable';
  card.dataset.risk = risk;
  const riskTag = el('span', { className: `risk risk-${risk}`, text: risk === 'dangerous' ? 'Dangerous' : risk === 'routine' ? 'Routine' : 'Notable' });
  card.append(el('header', {}, [title, riskTag, ...(headline === null ? [] : [el('span', { className: 'tool tool-tag', text: toolName })]), runLink]));
  // The headline says what the description would, in its first sentence: the rest is in its own place below.
  const description = headline === null ? (view?.description ?? '') : '';
  if (description !== '') card.append(el('p', { className: 'description', text: description }));
  if (headline !== null) card.append(viewNode(view));
  for (const line of Array.isArray(view?.consequences) ? view.consequences : []) card.append(el('p', { className: 'consequence', text: line }));
  // The gate's reason often only repeats the description ("write_file asks: Write ws/a.txt"): then the rule that asked says it all.
  const reasonText = typeof view?.reason === 'string' ? view.reason.replace(/^waiting for approval: /, '') : '';
  const repeats = reasonText === `${toolName} asks: ${view?.description ?? ''}` || reasonText === view?.description;
  const reasons = Array.isArray(view?.reasons) && view.reasons.length > 0 ? view.reasons.join('; ') : repeats ? '' : reasonText;
  if (reasons) card.append(el('p', { className: 'reason', text: `Why it asks: ${reasons}` }));
  if (view?.asked_by) card.append(el('p', { className: 'asked-by', text: `Asked by the policy's ${view.asked_by}` }));
  for (const line of Array.isArray(view?.asker) ? view.asker : []) card.append(el('p', { className: 'asker', text: line }));
  if (headline === null) card.append(viewNode(view));
  if (view?.session_scope) card.append(el('p', { className: 'scope', text: `“Allow for this session” covers ${view.session_scope}.` }));
  // How long it has waited, and when the policy's approval_timeout denies it (refreshed by the inbox).
  const waiting = el('p', { className: 'waiting' });
  card.refreshWaiting = () => {
    waiting.textContent = waitingText(pending.asked_at, pending.times_out_at, Date.now());
  };
  card.refreshWaiting();
  card.append(waiting);
  // "Claimed by NAME": another approver has this card open now (the inbox hears it every few seconds).
  const claimed = el('p', { className: 'claimed', attrs: { role: 'status' } });
  claimed.hidden = true;
  card.showClaimedBy = (names) => {
    claimed.hidden = names.length === 0;
    claimed.textContent = names.length === 0 ? '' : `${names.join(', ')} ${names.length === 1 ? 'has' : 'have'} this open now`;
  };
  card.append(claimed);

  const errorNode = el('p', { className: 'error', attrs: { role: 'alert' } });
  const reasonInput = el('input', { className: 'deny-reason', attrs: { type: 'text', placeholder: 'Reason for denying (the model sees it)', 'aria-label': 'Reason for denying', maxlength: '2000' } });
  const body = (extra) => ({ tool_call_id: String(pending.tool_call_id), via: 'inbox', ...extra });
  const send = (extra) => hold({ container: card, label: decisionLabel(extra, headline ?? toolName), sendNow: () => decide({ runId: pending.run_id, body: body(extra), errorNode, container: card, done: onDecided }) });
  const deny = () => {
    const reason = reasonInput.value.trim();
    return send({ approved: false, ...(reason === '' ? {} : { reason }) });
  };
  reasonInput.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      void deny();
    }
  });

  const editor = el('div', { className: 'editor', attrs: { hidden: '' } });
  // One field per argument (a file's content as text, not escaped JSON); JSON only for values that are not text, numbers or yes/no.
  const fields = argumentFields(pending);
  const sendEdited = () => {
    let edited;
    try {
      edited = fields.read();
    } catch (error) {
      errorNode.textContent = error instanceof Error ? error.message : String(error);
      return;
    }
    // Sent at once: the server checks the edit against the tool's schema, and its answer is shown here.
    // decide() enables every control when it is done: an edit still unsaved keeps the other allow actions waiting.
    void decide({ runId: pending.run_id, body: body({ approved: true, scope: 'once', edited_args: edited }), errorNode, container: card, done: onDecided }).finally(() => setEditing(card.classList.contains('editing')));
  };
  // While an edit is unsaved, the other allow actions would run the arguments as they were: they wait.
  const otherAllows = [];
  const setEditing = (editing) => {
    for (const control of otherAllows) control.disabled = editing;
    card.classList.toggle('editing', editing);
  };
  fields.node.addEventListener('input', () => setEditing(true));
  editor.append(
    el('p', { className: 'edit-label', text: 'Arguments to run instead (checked against the tool\'s schema when you allow):' }),
    fields.node,
    el('div', { className: 'buttons' }, [button('Allow with these arguments', 'allow', sendEdited), button('Cancel', 'secondary', () => toggleEditor(false))]),
  );
  const toggleEditor = (open) => {
    if (open) {
      editor.removeAttribute('hidden');
      fields.focus();
    } else {
      editor.setAttribute('hidden', '');
      fields.reset();
      setEditing(false);
    }
  };

  // An agent host's call (a hook's run) runs as the host made it: edited arguments could not be what runs, so none are offered.
  const editable = !String(pending.run_id).startsWith('run_hook_');
  // The wide approvals take a second step that says what they cover: one click (or key) never approves more than this call.
  const confirm = el('div', { className: 'confirm', attrs: { hidden: '', role: 'group', 'aria-label': 'Confirm a wider approval' } });
  let confirming = null;
  // "Always" may cover this exact call, calls like it (the payload), or what the tool offers wider: the narrowest is chosen first.
  const choices = scopeChoices(view);
  let chooser = null;
  const wideDecision = (scope) => {
    if (scope !== 'always' || chooser === null) return { approved: true, scope };
    const chosen = chooser.querySelector('input[type="radio"]:checked')?.value ?? '';
    return chosen === '' ? { approved: true, scope } : { approved: true, scope, always_scope: chosen };
  };
  const askToConfirm = (scope) => {
    if (confirming === scope) return send(wideDecision(scope));
    confirming = scope;
    const covers = scope === 'session' ? `“For this session” lets these run without asking: ${view?.session_scope ?? 'later calls like this one in this session'}.` : `“Always” lets these run without asking: ${view?.always_scope ?? 'later calls like this one'}.`;
    chooser = scope === 'always' && choices.length > 0 ? scopeChooser(choices, `${pending.run_id}-${pending.tool_call_id}`) : null;
    confirm.replaceChildren(
      ...(chooser === null ? [el('p', { className: 'confirm-text', text: covers })] : [chooser]),
      el('div', { className: 'buttons' }, [
        button(scope === 'session' ? 'Allow for this session' : 'Allow always', 'allow confirm-allow', () => void send(wideDecision(scope))),
        button('Cancel', 'secondary', () => cancelConfirm()),
      ]),
    );
    confirm.removeAttribute('hidden');
    return undefined;
  };
  const cancelConfirm = () => {
    confirming = null;
    chooser = null;
    confirm.setAttribute('hidden', '');
    confirm.replaceChildren();
  };
  const allowOnce = button('Allow once', 'allow primary', () => void send({ approved: true, scope: 'once' }));
  const forSession = button('For this session…', 'secondary', () => void askToConfirm('session'));
  const always = button('Always…', 'secondary', () => void askToConfirm('always'));
  otherAllows.push(allowOnce, forSession, always);
  card.append(
    el('div', { className: 'deny-row' }, [reasonInput]),
    el('div', { className: 'buttons' }, [
      button('Deny', 'deny', () => void deny()),
      allowOnce,
      forSession,
      always,
      ...(editable ? [button('Edit arguments', 'secondary', () => toggleEditor(editor.hasAttribute('hidden')))] : []),
    ]),
    confirm,
    ...(editable ? [editor] : []),
    errorNode,
  );
  card.actions = {
    once: () => (card.classList.contains('editing') ? undefined : send({ approved: true, scope: 'once' })),
    // Pressed once, it shows what it covers; pressed again, it decides.
    session: () => (card.classList.contains('editing') ? undefined : askToConfirm('session')),
    always: () => (card.classList.contains('editing') ? undefined : askToConfirm('always')),
    cancel: () => cancelConfirm(),
    deny: () => reasonInput.focus(),
    edit: () => (editable ? toggleEditor(true) : undefined),
  };
  return card;
}

/**
 * Calls that share a `group_id` (in one run): their dialogs in one box, with buttons that decide the whole group.
 *
 * @example
 * list.append(groupBox({ runId, groupId, cards, onDecided }));
 */
export function groupBox({ runId, groupId, cards, onDecided }) {
  const box = el('section', { className: 'group' });
  const errorNode = el('p', { className: 'error', attrs: { role: 'alert' } });
  const reasonInput = el('input', { className: 'deny-reason group-reason', attrs: { type: 'text', placeholder: 'Reason for denying them all (the model sees it)', 'aria-label': 'Reason for denying the group', maxlength: '2000' } });
  const send = (extra) => hold({ container: box, label: decisionLabel(extra, `${cards.length} calls`), sendNow: () => decide({ runId, body: { group_id: groupId, via: 'inbox', ...extra }, errorNode, container: box, done: onDecided }) });
  const denyAll = () => {
    const reason = reasonInput.value.trim();
    return send({ approved: false, ...(reason === '' ? {} : { reason }) });
  };
  // After the calls, so that they are read first; a dangerous call is never approved by a group action: it is decided on its own.
  const dangerous = cards.filter((card) => card.dataset.risk === 'dangerous').length;
  const allowAll = dangerous > 0
    ? [el('p', { className: 'group-note', text: `${dangerous} of these ${cards.length} calls ${dangerous === 1 ? 'is' : 'are'} dangerous: decide each call on its own (the buttons on each card), or deny them all.` })]
    : [
        // Once only: a wider approval is given call by call, each with its own second step.
        button(`Allow all ${cards.length} once`, 'allow', () => void send({ approved: true, scope: 'once' })),
      ];
  box.append(
    el('header', { className: 'group-head' }, [el('h2', { text: `${cards.length} calls decided together` }), el('span', { className: 'group-id', text: `group ${groupId}` })]),
    ...cards,
    el('div', { className: 'deny-row' }, [reasonInput]),
    el('div', { className: 'buttons group-buttons' }, [button(`Deny all ${cards.length}`, 'deny', () => void denyAll()), ...allowAll]),
    errorNode,
  );
  return box;
}
