/**
 * The "approve always" decisions (`GET /approvals/always`): what each lets
 * run unasked, when it was given, whether a changed tool voided it, and
 * Revoke (`DELETE /approvals/always/:id`), after which the next such call
 * asks again.
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
      const revoke = button('Revoke', 'deny revoke', async () => {
        revoke.disabled = true;
        let failed = '';
        try {
          await api('DELETE', `/approvals/always/${encodeURIComponent(record.id)}`);
        } catch (failure) {
          failed = failure instanceof Error ? failure.message : String(failure);
        }
        await load();
        // Said after the list is read again, which clears the last message.
        if (failed !== '') error.textContent = `Not revoked: ${failed}`;
      });
      list.append(
        el('li', { className: `always-item${record.voided_at ? ' voided' : ''}` }, [
          el('div', { className: 'always-head' }, [el('span', { className: 'tool', text: String(record.tool) }), el('span', { className: 'always-id', text: String(record.id) }), revoke]),
          el('p', { className: 'always-description', text: String(record.description ?? '') }),
          el('p', { className: 'always-payload', text: `Matches: ${String(record.payload_preview ?? '')}` }),
          el('p', { className: 'run-meta', text: `Given ${localTime(record.created_at)}${record.voided_at ? ` · voided ${localTime(record.voided_at)}: the tool changed, so it no longer applies` : ''}` }),
        ]),
      );
    }
    empty.hidden = (body.approvals ?? []).length > 0;
  };
  await load();
}
