/**
 * One run: its status, input, answer, the decisions with who took them,
 * and the timeline of its events (`GET /runs/:id/events`, from the run's
 * start, then live while the view is open).
 */
import { api, followEvents } from './api.js';
import { button, clear, el } from './dom.js';
import { localTime } from './runs-view.js';

/** A short line for one event in the timeline. */
function eventSummary(type, data) {
  const tool = typeof data.tool_name === 'string' ? data.tool_name : '';
  switch (type) {
    case 'checkpoint_required':
      return `waits for approval: ${tool}`;
    case 'approval_decided':
      return `${data.approved ? 'approved' : 'denied'} ${tool} by ${String(data.decided_by ?? '?')}${viaText(data.via)}${data.reason ? ` — ${String(data.reason)}` : ''}`;
    case 'run_paused':
      return 'paused for approval';
    case 'run_resumed':
      return 'resumed';
    case 'run_cancelled':
      return `cancelled${data.reason ? `: ${String(data.reason)}` : ''}`;
    case 'run_completed':
      return 'completed';
    case 'run_failed':
      return `failed${data.error ? `: ${String(data.error)}` : ''}`;
    case 'run_started':
      return `started${data.input ? `: ${String(data.input)}` : ''}`;
    case 'text':
      return `the model said: ${String(data.text ?? data.delta ?? '')}`;
    case 'tool_result':
      // A call that did not run (denied, blocked, failed, interrupted) says so and why; one that ran shows its output.
      if (data.outcome !== undefined && data.outcome !== 'ran') return `${tool} ${String(data.outcome)}${data.reason || data.error ? `: ${String(data.reason ?? data.error)}` : ''}`;
      return `${tool} → ${typeof data.output === 'string' ? data.output : JSON.stringify(data.output ?? data.result ?? null)}`;
    default:
      return type.replace(/_/g, ' ');
  }
}

/**
 * Shows run `runId` in `container` until `signal` aborts; `onBack` returns to the inbox.
 *
 * @example
 * showRun({ container, runId, signal, onBack: () => (location.hash = '') });
 */
export async function showRun({ container, runId, signal, onBack }) {
  clear(container);
  const summary = el('div', { className: 'run-summary' });
  const decisions = el('div', { className: 'decisions' });
  const timeline = el('ol', { className: 'timeline' });
  const state = el('p', { className: 'stream-state' });
  container.append(
    el('div', { className: 'run-head' }, [button('← Inbox', 'secondary back', onBack), el('h2', { text: `Run ${runId}` })]),
    summary,
    el('h3', { text: 'Decisions' }),
    decisions,
    el('h3', { text: 'Timeline' }),
    state,
    timeline,
  );
  const policyDecisions = [];
  let lastDecisions = [];
  const load = async () => {
    try {
      const run = await api('GET', `/runs/${encodeURIComponent(runId)}`);
      renderSummary(summary, run);
      lastDecisions = run.decisions ?? [];
      renderDecisions(decisions, lastDecisions, policyDecisions);
    } catch (error) {
      clear(summary);
      summary.append(el('p', { className: 'error', text: error instanceof Error ? error.message : String(error) }));
    }
  };
  await load();
  void followEvents({
    path: `/runs/${encodeURIComponent(runId)}/events`,
    signal,
    onState: (value) => (state.textContent = value === 'live' ? '' : value),
    onEvent: (message, id) => {
      const data = message.data !== null && typeof message.data === 'object' ? message.data : {};
      // A readable sentence with its time; the event as the server sent it behind a disclosure.
      const raw = el('details', { className: 'event-raw' }, [el('summary', { text: 'event' }), el('pre', { className: 'code', text: JSON.stringify(message, null, 2) })]);
      const item = el('li', { className: `event event-${String(message.type).replace(/[^a-z_]/g, '')}` }, [
        el('time', { className: 'event-time', text: clockTime(message.at), attrs: message.at ? { datetime: String(message.at) } : {} }),
        el('span', { className: 'event-text', text: eventSummary(message.type, data) }),
        raw,
      ]);
      item.dataset.id = String(id);
      item.dataset.type = String(message.type);
      timeline.append(item);
      // What the policy decided on its own (a block) is a decision too.
      if (message.type === 'tool_result' && data.outcome === 'blocked') policyDecisions.push({ tool: String(data.tool_name ?? ''), reason: String(data.reason ?? ''), at: message.at });
      if (message.type !== 'text' && message.type !== 'tool_result') void load();
      else if (message.type === 'tool_result' && data.outcome === 'blocked') renderDecisions(decisions, lastDecisions, policyDecisions);
    },
  });
}

function renderSummary(node, run) {
  clear(node);
  const rows = [
    ['Status', run.status],
    ['Input', run.input],
    ['Answer', run.text],
    ['Error', run.error],
    ['Mode', run.mode],
    ['Owner', run.owner],
    ['Model', run.model],
    ['Started', localTime(run.created_at)],
    ['Updated', localTime(run.updated_at)],
  ];
  const list = el('dl', { className: 'run-fields' });
  for (const [label, value] of rows) {
    if (value === null || value === undefined || value === '') continue;
    list.append(el('dt', { text: label }), el('dd', { className: `run-${label.toLowerCase()}`, text: String(value) }));
  }
  node.append(list);
  const pending = run.pending_approvals ?? [];
  if (pending.length > 0) node.append(el('p', { className: 'note', text: `${pending.length} ${pending.length === 1 ? 'call waits' : 'calls wait'} for a decision in the inbox.` }));
}

/** How a decision was made, after who made it: ` in the inbox`, ` over the API`; nothing for a timeout (its name says it). */
function viaText(via) {
  return via === 'inbox' ? ' in the inbox' : via === 'api' ? ' over the API' : '';
}

function renderDecisions(node, decisions, blocks = []) {
  clear(node);
  if (decisions.length === 0 && blocks.length === 0) {
    node.append(el('p', { className: 'empty', text: 'No decisions yet.' }));
    return;
  }
  const list = el('ul', { className: 'decision-list' });
  for (const decision of decisions) {
    const what = `${decision.approved ? 'Approved' : 'Denied'} ${decision.tool_name} (${decision.scope})`;
    list.append(el('li', { className: decision.approved ? 'approved' : 'denied' }, [el('span', { text: what }), el('span', { className: 'who', text: ` by ${decision.decided_by}${viaText(decision.via)} at ${localTime(decision.decided_at)}` }), decision.reason ? el('span', { className: 'why', text: ` — ${decision.reason}` }) : null]));
  }
  for (const block of blocks) {
    list.append(el('li', { className: 'denied blocked' }, [el('span', { text: `Blocked ${block.tool}` }), el('span', { className: 'who', text: ` by the policy${block.at ? ` at ${localTime(block.at)}` : ''}` }), block.reason ? el('span', { className: 'why', text: ` — ${block.reason}` }) : null]));
  }
  node.append(list);
}

/** `10:04:31` in the reader's time zone. */
function clockTime(iso) {
  const time = new Date(String(iso ?? ''));
  if (Number.isNaN(time.getTime())) return '';
  return localTime(iso).slice(11);
}
