/**
 * What toolgate remembers people decided. The "approve always" decisions
 * (`GET /approvals/always`): what each lets run unasked, when it was given,
 * whether a changed tool voided it, and Revoke (`DELETE
 * /approvals/always/:id`), after which the next such call asks again. Then
 * the "for this session" decisions (`GET /approvals/session`): approvals and
 * denials, whose session, who decided and when, and Forget (`DELETE
 * /approvals/session/:id`), after which that session is asked again.
 */
import { api } from './api.js';
import { button, clear, el } from './dom.js';
import { localTime } from './runs-view.js';

/**
 * Shows the list in `container`.
 *
 * @example
 * await showAlways({ container });
 */
export async function showAlways({ container }) {
  clear(container);
  const error = el('p', { className: 'error', attrs: { role: 'alert' } });
  const where = el('p', { className: 'note' });
  const list = el('ul', { className: 'always-list' });
  const empty = el('p', { className: 'empty', text: 'No "approve always" decisions: every call the policy asks about is asked.' });
  container.append(el('div', { className: 'run-head' }, [el('h2', { text: 'Always allowed' })]), where, error, list, empty);
  const load = async () => {
    error.textContent = '';
    let body;
    try {
      body = await api('GET', '/approvals/always');
    } catch (failure) {
      error.textContent = failure instanceof Error ? failure.message : String(failure);
      return;
    }
    where.textContent = `Kept in ${String(body.where ?? '')}. Each lets the calls it names run without asking, in every session, until it is revoked.`;
    clear(list);
    for (const record of body.approvals ?? []) {
      const revoke = deleteButton({ label: 'Revoke', path: `/approvals/always/${encodeURIComponent(record.id)}`, reload: load, error, failed: 'Not revoked' });
      list.append(
        el('li', { className: `always-item${record.voided_at ? ' voided' : ''}` }, [
          el('div', { className: 'always-head' }, [el('span', { className: 'tool', text: String(record.tool) }), el('span', { className: 'always-id', text: String(record.id) }), revoke]),
          el('p', { className: 'always-description', text: String(record.description ?? '') }),
          typeof record.rule === 'string'
            ? el('p', { className: 'always-payload' }, [el('span', { text: 'Rule: ' }), el('code', { className: 'scope-rule', text: record.rule })])
            : el('p', { className: 'always-payload', text: `Matches: ${String(record.payload_preview ?? '')}` }),
          el('p', { className: 'run-meta', text: `Given ${localTime(record.created_at)}${record.voided_at ? ` · voided ${localTime(record.voided_at)}: the tool changed, so it no longer applies` : ''}` }),
        ]),
      );
    }
    empty.hidden = (body.approvals ?? []).length > 0;
  };
  await load();
  await showSessionDecisions({ container });
}

/** The "for this session" decisions, below the "always" ones. */
async function showSessionDecisions({ container }) {
  const error = el('p', { className: 'error', attrs: { role: 'alert' } });
  const list = el('ul', { className: 'always-list session-list' });
  const empty = el('p', { className: 'empty', text: 'No "for this session" decisions are remembered.' });
  const note = el('p', { className: 'note', text: 'Each holds in its session only: the same call there is decided as it was, without asking, until it is forgotten.' });
  container.append(el('div', { className: 'run-head' }, [el('h2', { text: 'For this session' })]), note, error, list, empty);
  const load = async () => {
    error.textContent = '';
    let body;
    try {
      body = await api('GET', '/approvals/session');
    } catch (failure) {
      error.textContent = failure instanceof Error ? failure.message : String(failure);
      return;
    }
    clear(list);
    for (const entry of body.approvals ?? []) {
      const forget = deleteButton({ label: 'Forget', path: `/approvals/session/${encodeURIComponent(entry.id)}`, reload: load, error, failed: 'Not forgotten' });
      const session = `Session ${String(entry.session_id)}${entry.owner ? ` (${String(entry.owner)}'s runs)` : ''}${entry.chat_id ? ` · chat ${String(entry.chat_id)}` : ''}`;
      const decided = entry.decided_at ? ` · ${entry.approved ? 'approved' : 'denied'}${entry.decided_by ? ` by ${String(entry.decided_by)}` : ''} ${localTime(entry.decided_at)}` : '';
      list.append(
        el('li', { className: `session-item${entry.approved ? '' : ' denied'}` }, [
          el('div', { className: 'always-head' }, [
            el('span', { className: 'tool', text: String(entry.tool ?? 'a call') }),
            el('span', { className: `session-verdict ${entry.approved ? 'allowed' : 'refused'}`, text: entry.approved ? 'Allowed' : 'Denied' }),
            forget,
          ]),
          el('p', { className: 'always-description', text: String(entry.description ?? '(remembered by an earlier toolgate, which kept no description)') }),
          ...(entry.approved || !entry.reason ? [] : [el('p', { className: 'always-payload', text: `Reason: ${String(entry.reason)}` })]),
          el('p', { className: 'run-meta', text: `${session}${decided}` }),
        ]),
      );
    }
    empty.hidden = (body.approvals ?? []).length > 0;
  };
  await load();
}

/** A button that sends DELETE `path`, then reads the list again (`reload`); a refusal is said in `error`, after the list is read again (which clears it). */
function deleteButton({ label, path, reload, error, failed }) {
  const node = button(label, 'deny revoke', async () => {
    node.disabled = true;
    let problem = '';
    try {
      await api('DELETE', path);
    } catch (failure) {
      problem = failure instanceof Error ? failure.message : String(failure);
    }
    await reload();
    if (problem !== '') error.textContent = `${failed}: ${problem}`;
  });
  return node;
}
