/**
 * The page a one-tap link opens (`/decide/TOKEN`): the call as the inbox
 * shows it, and Approve / Deny buttons that POST. Opening the page decides
 * nothing, so a mail scanner or a chat preview that fetches the link does
 * nothing either. The token is the path's last segment; it is sent back
 * only to this server, and the page sends no referrer.
 */
import { button, clear, el } from './dom.js';
import { viewNode } from './view-render.js';

const main = document.getElementById('decide');
const token = decodeURIComponent(location.pathname.split('/').filter((part) => part !== '').at(-1) ?? '');
const base = `/decide/${encodeURIComponent(token)}`;

/** A page that says what happened, and nothing to press. */
function settled(title, text, className) {
  clear(main);
  main.append(el('section', { className: `decide-result ${className}` }, [el('h2', { text: title }), el('p', { text })]));
}

const STATE_TITLES = {
  expired: 'This link has expired',
  decided: 'This call was already decided',
  changed: 'This call has changed',
  not_waiting: 'This call no longer waits',
  approver_gone: 'This link can no longer decide',
  gone: 'This call is gone',
  invalid: 'This link is not valid',
};

async function load() {
  let response;
  try {
    response = await fetch(`${base}/view`, { headers: { Accept: 'application/json' } });
  } catch {
    settled('The server could not be reached', 'Try the link again in a moment.', 'refused');
    return;
  }
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    settled(STATE_TITLES[body.state] ?? 'This link does nothing', String(body.error ?? `HTTP ${response.status}`), 'refused');
    return;
  }
  show(body);
}

function show(link) {
  // A link forwarded to another approver: this browser's inbox is signed in as someone else, who decides in the inbox, not with this.
  const signedIn = localStorage.getItem('toolgate-signed-in-as');
  if (signedIn !== null && signedIn !== '' && signedIn !== link.approver) {
    settled('This link is someone else\'s', `It was sent to ${link.approver}, and this browser is signed in to toolgate's inbox as ${signedIn}. Nothing was decided: ${signedIn} can decide the call in the inbox.`, 'refused');
    return;
  }
  const view = link.presentation && typeof link.presentation === 'object' ? link.presentation : null;
  clear(main);
  const risk = ['routine', 'notable', 'dangerous'].includes(view?.risk) ? view.risk : 'notable';
  const card = el('article', { className: 'approval', attrs: { 'data-risk': risk } });
  const toolName = String(view?.tool ?? link.tool_name);
  const headline = typeof view?.headline === 'string' && view.headline !== '' ? view.headline : toolName;
  const riskTag = el('span', { className: `risk risk-${risk}`, text: risk === 'dangerous' ? 'Dangerous' : risk === 'routine' ? 'Routine' : 'Notable' });
  card.append(el('header', {}, [el('h2', { className: 'headline', text: headline }), riskTag, ...(headline === toolName ? [] : [el('span', { className: 'tool tool-tag', text: toolName })])]));
  if (typeof view?.description === 'string' && view.description !== headline) card.append(el('p', { className: 'description', text: view.description }));
  for (const line of Array.isArray(view?.consequences) ? view.consequences : []) card.append(el('p', { className: 'consequence', text: line }));
  if (Array.isArray(view?.reasons) && view.reasons.length > 0) card.append(el('p', { className: 'reason', text: `Why it asks: ${view.reasons.join('; ')}` }));
  if (view?.asked_by) card.append(el('p', { className: 'asked-by', text: `Asked by the policy's ${view.asked_by}` }));
  card.append(viewNode(view));
  card.append(el('p', { className: 'link-for', text: `You decide as ${link.approver}. This link works once, for this call only, until ${new Date(link.expires_at).toLocaleString()}.` }));
  const error = el('p', { className: 'error', attrs: { role: 'alert' } });
  const reason = el('input', { className: 'deny-reason', attrs: { type: 'text', placeholder: 'Reason for denying (the model sees it)', 'aria-label': 'Reason for denying', maxlength: '2000' } });
  const buttons = el('div', { className: 'buttons' });
  const decide = async (approved) => {
    for (const node of buttons.querySelectorAll('button')) node.disabled = true;
    const text = reason.value.trim();
    let response;
    try {
      response = await fetch(base, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json' }, body: JSON.stringify({ approved, ...(approved || text === '' ? {} : { reason: text }) }) });
    } catch {
      error.textContent = 'The server could not be reached: nothing was decided. Try again.';
      for (const node of buttons.querySelectorAll('button')) node.disabled = false;
      return;
    }
    const body = await response.json().catch(() => ({}));
    if (!response.ok) {
      settled(STATE_TITLES[body.state] ?? 'Nothing was decided', String(body.error ?? `HTTP ${response.status}`), 'refused');
      return;
    }
    settled(approved ? 'Approved' : 'Denied', String(body.message ?? ''), approved ? 'approved' : 'denied');
  };
  buttons.append(button('Deny', 'deny', () => void decide(false)), button('Approve once', 'allow primary', () => void decide(true)));
  card.append(el('div', { className: 'deny-row' }, [reason]), buttons, error);
  main.append(card);
}

void load();
