/**
 * The runs the caller may see (`GET /runs`), newest first: a status filter
 * (the server's), a search over what is loaded (the input, the answer, the
 * model, the run id), and "More" for the next page (the server's cursor).
 * A run opens its own view.
 */
import { api } from './api.js';
import { button, clear, el } from './dom.js';

const PAGE = 50;
const STATUSES = ['running', 'paused_checkpoint', 'completed', 'failed', 'cancelled'];

/** `2026-12-06 10:04` in the reader's time zone, from an ISO time; the text as it is otherwise. */
export function localTime(iso) {
  const time = new Date(String(iso ?? ''));
  if (Number.isNaN(time.getTime())) return String(iso ?? '');
  const pad = (value) => String(value).padStart(2, '0');
  return `${time.getFullYear()}-${pad(time.getMonth() + 1)}-${pad(time.getDate())} ${pad(time.getHours())}:${pad(time.getMinutes())}:${pad(time.getSeconds())}`;
}

/**
 * Shows the runs list in `container` until `signal` aborts.
 *
 * @example
 * showRuns({ container, signal, onOpenRun: (id) => (location.hash = `#run=${id}`) });
 */
export async function showRuns({ container, signal, onOpenRun }) {
  clear(container);
  const status = el('select', { className: 'runs-status', attrs: { 'aria-label': 'Status' } }, [el('option', { text: 'Every status', attrs: { value: '' } }), ...STATUSES.map((value) => el('option', { text: value.replace('_checkpoint', ''), attrs: { value } }))]);
  const search = el('input', { className: 'runs-search', attrs: { type: 'search', placeholder: 'Search the loaded runs', 'aria-label': 'Search runs' } });
  const list = el('ol', { className: 'runs-list' });
  const more = button('More', 'secondary runs-more', () => void load(false));
  const error = el('p', { className: 'error', attrs: { role: 'alert' } });
  const empty = el('p', { className: 'empty', text: 'No runs.' });
  container.append(el('div', { className: 'run-head' }, [el('h2', { text: 'Runs' }), status, search]), error, list, empty, more);
  let runs = [];
  let next = null;

  const render = () => {
    clear(list);
    const wanted = search.value.trim().toLowerCase();
    const shown = runs.filter((run) => wanted === '' || [run.run_id, run.input, run.text, run.model, run.owner].some((value) => String(value ?? '').toLowerCase().includes(wanted)));
    for (const run of shown) {
      const open = button(String(run.input ?? run.run_id).slice(0, 200) || run.run_id, 'link run-open', () => onOpenRun(run.run_id));
      list.append(
        el('li', { className: `run-row status-${String(run.status)}` }, [
          el('span', { className: `run-state status-${String(run.status)}`, text: String(run.status).replace('_checkpoint', '') }),
          open,
          el('span', { className: 'run-meta', text: `${localTime(run.created_at)} · ${String(run.model ?? '')}${run.pending > 0 ? ` · ${run.pending} waiting` : ''}` }),
        ]),
      );
    }
    empty.hidden = shown.length > 0;
    more.hidden = next === null || next === undefined;
  };

  const load = async (fresh) => {
    if (signal.aborted) return;
    error.textContent = '';
    const query = new URLSearchParams({ limit: String(PAGE) });
    if (status.value !== '') query.set('status', status.value);
    if (!fresh && next) query.set('before', next);
    try {
      const page = await api('GET', `/runs?${query}`);
      runs = fresh ? page.runs : [...runs, ...page.runs];
      next = page.next ?? null;
    } catch (failure) {
      error.textContent = failure instanceof Error ? failure.message : String(failure);
    }
    render();
  };
  status.addEventListener('change', () => void load(true));
  search.addEventListener('input', render);
  await load(true);
}
