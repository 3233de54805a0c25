/**
 * Where people's attention went (`GET /insights?days=N`): the figures of
 * `toolgate insights` over the server's audit trail. First a chart — asks a
 * day as bars, the share approved as a line — since one sees a rubber stamp
 * faster in a picture than in a table; then per rule (asks, approved,
 * median and 90th-percentile time to decide, a small chart of its own days,
 * the rubber-stamp flag), per approver (busiest hour, against the policy's
 * attention budget), and the calls refused again and again in one session.
 * The SVG is built node by node: text from the audit trail is only ever
 * text.
 */
import { api } from './api.js';
import { clear, el } from './dom.js';

const SVG = 'http://www.w3.org/2000/svg';
const PERIODS = [7, 30, 90];
const MAX_COLUMNS = 366;

/** An SVG element with attributes. */
function svg(tag, attrs = {}, children = []) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  for (const child of children) node.append(child);
  return node;
}

/**
 * Asks a day (bars) and the share approved (a line, 0–100%), one column per
 * day of `days` (missing days count none). `label` names it for screen readers.
 */
export function dayChart({ days, width, height, label }) {
  const byDay = new Map(days.map((day) => [day.day, day]));
  const first = days.length === 0 ? new Date() : new Date(`${days[0].day}T00:00:00Z`);
  const last = days.length === 0 ? new Date() : new Date(`${days.at(-1).day}T00:00:00Z`);
  const columns = [];
  for (let time = Math.max(first.getTime(), last.getTime() - MAX_COLUMNS * 86_400_000); time <= last.getTime(); time += 86_400_000) {
    const day = new Date(time).toISOString().slice(0, 10);
    columns.push(byDay.get(day) ?? { day, asks: 0, approved: 0 });
  }
  // At most a year of columns, the latest: the server sends no later day than today, but a chart is never drawn wider than this.
  if (columns.length > MAX_COLUMNS) columns.splice(0, columns.length - MAX_COLUMNS);
  let most = 1;
  for (const column of columns) most = Math.max(most, column.asks);
  const step = width / Math.max(1, columns.length);
  const chart = svg('svg', { viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': label, class: 'day-chart' });
  const points = [];
  columns.forEach((column, index) => {
    const barHeight = Math.round((column.asks / most) * (height - 4));
    const bar = svg('rect', { x: (index * step + 1).toFixed(1), y: height - barHeight, width: Math.max(1, step - 2).toFixed(1), height: barHeight, class: 'asks-bar' }, [svg('title')]);
    bar.firstChild.textContent = `${column.day}: ${column.asks} asks, ${column.asks === 0 ? 0 : Math.round((column.approved / column.asks) * 100)}% approved`;
    chart.append(bar);
    if (column.asks > 0) points.push(`${(index * step + step / 2).toFixed(1)},${(height - 2 - (column.approved / column.asks) * (height - 4)).toFixed(1)}`);
  });
  if (points.length > 0) chart.append(svg('polyline', { points: points.join(' '), class: 'approved-line', fill: 'none' }));
  return chart;
}

function seconds(ms) {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

function percent(rate) {
  return `${Math.round(rate * 100)}%`;
}

/**
 * Shows the page in `container`.
 *
 * @example
 * await showInsights({ container });
 */
export async function showInsights({ container }) {
  clear(container);
  const period = el('select', { className: 'insights-period', attrs: { 'aria-label': 'Period' } }, PERIODS.map((days) => el('option', { text: `Last ${days} days`, attrs: { value: String(days) } })));
  period.value = '30';
  const error = el('p', { className: 'error', attrs: { role: 'alert' } });
  const body = el('div', { className: 'insights' });
  container.append(el('div', { className: 'run-head' }, [el('h2', { text: 'Attention' }), period]), error, body);
  const load = async () => {
    error.textContent = '';
    let figures;
    try {
      figures = await api('GET', `/insights?days=${encodeURIComponent(period.value)}`);
    } catch (failure) {
      error.textContent = failure instanceof Error ? failure.message : String(failure);
      return;
    }
    clear(body);
    body.append(
      el('p', { className: 'note', text: `${figures.calls} calls judged, ${figures.asks} asks decided by a person or a timeout${figures.unanswered > 0 ? `, ${figures.unanswered} never answered` : ''} (from ${String(figures.where ?? '')}).` }),
      dayChart({ days: figures.days ?? [], width: 640, height: 120, label: 'Asks a day (bars) and the share approved (line)' }),
    );
    const rules = el('table', { className: 'insights-rules' }, [
      el('thead', {}, [el('tr', {}, ['Rule', 'Asks', 'Approved', 'Median', 'p90', 'Days', ''].map((title) => el('th', { text: title })))]),
    ]);
    const rows = el('tbody');
    for (const rule of figures.rules ?? []) {
      const days = (figures.days ?? []).map((day) => ({ day: day.day, ...(day.rules?.[rule.rule ?? ''] ?? { asks: 0, approved: 0 }) }));
      rows.append(
        el('tr', { className: rule.rubberStamped ? 'rubber-stamped' : '' }, [
          el('td', { text: `${rule.rule ?? '(no rule)'}${rule.ruleAt === undefined ? '' : ` (${rule.ruleAt})`}` }),
          el('td', { text: String(rule.asks) }),
          el('td', { text: percent(rule.approvalRate) }),
          el('td', { text: seconds(rule.medianMs) }),
          el('td', { text: seconds(rule.p90Ms) }),
          el('td', {}, [dayChart({ days, width: 120, height: 24, label: `Asks a day under ${rule.rule ?? 'no rule'}` })]),
          el('td', { className: 'flag', text: rule.rubberStamped ? 'rubber-stamped? approved almost always, in seconds: toolgate insights --suggest proposes a narrower rule' : '' }),
        ]),
      );
    }
    rules.append(rows);
    body.append(el('h3', { text: 'By rule' }), rules);
    const people = el('table', { className: 'insights-approvers' }, [
      el('thead', {}, [el('tr', {}, ['Approver', 'Decided', 'Approved', 'Median', 'Busiest hour', ''].map((title) => el('th', { text: title })))]),
    ]);
    const peopleRows = el('tbody');
    for (const person of figures.approvers ?? []) {
      const over = figures.budgetPerHour !== null && person.hoursOverBudget > 0;
      peopleRows.append(
        el('tr', { className: over ? 'over-budget' : '' }, [
          el('td', { text: person.approver }),
          el('td', { text: String(person.decided) }),
          el('td', { text: percent(person.decided === 0 ? 0 : person.approved / person.decided) }),
          el('td', { text: seconds(person.medianMs) }),
          el('td', { text: `${person.busiestHour} asks` }),
          el('td', { className: 'flag', text: over ? `over the budget of ${figures.budgetPerHour} an hour in ${person.hoursOverBudget} hour${person.hoursOverBudget === 1 ? '' : 's'}` : '' }),
        ]),
      );
    }
    people.append(peopleRows);
    body.append(el('h3', { text: 'By approver' }), people);
    if ((figures.loops ?? []).length > 0) {
      body.append(el('h3', { text: 'Refused again and again (the agent looping?)' }), el('ul', { className: 'insights-loops' }, figures.loops.map((loop) => el('li', { text: `${loop.denials}× in session ${loop.session}: ${loop.tool}: ${loop.call}` }))));
    }
  };
  period.addEventListener('change', () => void load());
  await load();
}
