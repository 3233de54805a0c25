/**
 * The web inbox: log in with the token from the login URL, list every call
 * waiting for the caller's decision (`GET /approvals`), keep the list live
 * from `GET /events`, decide with buttons or keys, and open a run's view.
 * No framework, no build step, nothing from elsewhere; all text goes into
 * the page as text.
 */
import { api, followEvents, forgetToken, storeToken, takeToken, whenUnauthorized } from './api.js';
import { approvalCard, groupBox } from './approval-card.js';
import { el } from './dom.js';
import { showRun } from './run-view.js';
import { showRuns } from './runs-view.js';
import { showAlways } from './approvals-view.js';
import { showInsights } from './insights-view.js';

const pending = new Map();
/** Calls decided (by anyone) since the page loaded: a late list must not bring them back. */
const decided = new Set();
let selected = 0;
/** The policy's attention budget and this person's decisions in the last hour (`GET /whoami`): past it, asks of a kind gather on one card. */
let budget = { asks_per_hour: null, decided_last_hour: 0 };
/** The kinds whose gathered asks this page has opened. */
const openKinds = new Set();
const kindCache = new Map();
/** Cards and group boxes already on the page, kept across renders so that a reason being typed or an edit in progress survives new arrivals. */
const cardCache = new Map();
const groupCache = new Map();
/** When the selected card last changed (a decision moves the selection to the next card). */
let selectionChangedAt = 0;
let selectedKey;
/**
 * A keyboard approval needs the card to have been on screen, and selected,
 * this long: a second `a` pressed in a hurry must not approve the card that
 * just moved under the selection (the terminal drops such typeahead too).
 */
const SETTLE_MS = 400;
let streamController = null;
let runController = null;

/** How often the page says which card it has open, and hears which others have open ("claimed by NAME"). */
const PRESENCE_MS = 5_000;
let presenceTimer = null;
let budgetTimer = null;
let reportedKey;

const $ = (id) => document.getElementById(id);
const keyOf = (runId, toolCallId) => `${runId}\u0000${toolCallId}`;

function showOnly(section) {
  for (const id of ['login', 'inbox', 'run-view', 'runs-view', 'always-view', 'insights-view']) {
    if (id === section) $(id).removeAttribute('hidden');
    else $(id).setAttribute('hidden', '');
  }
}

function setStreamState(state) {
  const node = $('stream-state');
  node.textContent = state === 'live' ? 'live' : state;
  node.dataset.state = state;
}

function add(item) {
  if (item === null || typeof item !== 'object' || typeof item.run_id !== 'string' || typeof item.tool_call_id !== 'string') return;
  const key = keyOf(item.run_id, item.tool_call_id);
  if (decided.has(key)) return;
  pending.set(key, item);
}

function remove(runId, toolCallId) {
  const key = keyOf(runId, toolCallId);
  decided.add(key);
  pending.delete(key);
}

/**
 * A browser notification and a short tone when a call arrives, once the
 * person asked for them (a click: browsers allow permission prompts and
 * sound only then); the choice lasts for this tab.
 */
const attention = { on: false, audio: null };

async function toggleAttention() {
  const node = $('notify-toggle');
  if (attention.on) {
    attention.on = false;
    sessionStorage.removeItem('toolgate-notify');
    node.textContent = 'Notify me';
    return;
  }
  if (typeof Notification === 'undefined') {
    node.textContent = 'No notifications in this browser';
    return;
  }
  const permission = Notification.permission === 'granted' ? 'granted' : await Notification.requestPermission();
  if (permission !== 'granted') {
    node.textContent = 'Notifications are blocked for this page';
    return;
  }
  attention.on = true;
  attention.audio ??= typeof AudioContext === 'undefined' ? null : new AudioContext();
  sessionStorage.setItem('toolgate-notify', 'on');
  node.textContent = 'Notifications on';
}

function announce(item) {
  if (!attention.on || typeof Notification === 'undefined' || Notification.permission !== 'granted') return;
  const view = item.presentation !== null && typeof item.presentation === 'object' ? item.presentation : {};
  const what = String(view.headline ?? view.description ?? item.tool_name ?? '').slice(0, 160);
  try {
    new Notification(`toolgate: ${view.risk === 'dangerous' ? 'a dangerous call waits' : 'a call waits'} for you`, { body: what, tag: keyOf(item.run_id, item.tool_call_id) });
  } catch {
    // A browser that refuses to show one (a service worker is required on some phones): the tab title still counts it.
  }
  if (attention.audio !== null) {
    const tone = attention.audio.createOscillator();
    const gain = attention.audio.createGain();
    gain.gain.value = 0.05;
    tone.frequency.value = 660;
    tone.connect(gain).connect(attention.audio.destination);
    tone.start();
    tone.stop(attention.audio.currentTime + 0.15);
  }
}

/** Handles one event of `GET /events`. */
function onEvent(message) {
  const data = message.data !== null && typeof message.data === 'object' ? message.data : {};
  if (message.type === 'checkpoint_required') {
    const fresh = typeof data.run_id === 'string' && !pending.has(keyOf(data.run_id, String(data.tool_call_id))) && !decided.has(keyOf(data.run_id, String(data.tool_call_id)));
    add(data);
    if (fresh) announce(data);
    render();
  } else if (message.type === 'approval_decided') {
    remove(data.run_id, data.tool_call_id);
    render();
  } else if (['run_cancelled', 'run_completed', 'run_failed'].includes(message.type)) {
    // A finished run has nothing left to decide.
    for (const item of [...pending.values()]) if (item.run_id === data.run_id) remove(item.run_id, item.tool_call_id);
    render();
  }
}

/** Notifications given up on (a webhook or a mail server that never took them): said above the cards, with the last error. */
async function loadDeadLetters() {
  const node = $('dead-letters');
  try {
    const body = await api('GET', '/notifications?status=dead&limit=5');
    const dead = Number(body?.counts?.dead ?? 0);
    node.hidden = dead === 0;
    if (dead === 0) return;
    const last = Array.isArray(body.deliveries) ? body.deliveries[0] : undefined;
    node.textContent = `⚠ ${dead} ${dead === 1 ? 'notification was' : 'notifications were'} not delivered after every retry${last ? ` (latest: ${String(last.channel)}, ${String(last.last_error ?? 'no error given')})` : ''}. The calls still wait here.`;
  } catch {
    // An older server, or a token that may not read them: nothing to say.
    node.hidden = true;
  }
}

async function loadApprovals() {
  void loadDeadLetters();
  // A call the stream brings while the list is on its way is newer than the list: only what was here before it can be gone.
  const known = new Set(pending.keys());
  try {
    const body = await api('GET', '/approvals');
    const list = Array.isArray(body) ? body : Array.isArray(body?.approvals) ? body.approvals : [];
    const seen = new Set();
    for (const item of list) {
      add(item);
      seen.add(keyOf(item.run_id, item.tool_call_id));
    }
    // What the server no longer lists was decided while the stream was away.
    for (const key of [...pending.keys()]) if (known.has(key) && !seen.has(key)) pending.delete(key);
    $('inbox-error').textContent = '';
  } catch (error) {
    $('inbox-error').textContent = error instanceof Error ? error.message : String(error);
  }
  render();
}

/** Tool call ids are unique within a run only: the decided calls are this run's. */
function onDecided(result, runId) {
  for (const id of result?.decided ?? []) remove(runId, id);
  render();
  // The decision counts against the hour's budget: the server says where this person stands now.
  void rememberWhoIsSignedIn();
}

function overBudget() {
  return typeof budget.asks_per_hour === 'number' && budget.decided_last_hour >= budget.asks_per_hour;
}

/** toolgate's own tools that do many different things (any command, any file): their asks are alike only where "Always" would cover them alike. */
const GENERAL_TOOLS = new Set(['shell', 'host_shell', 'host_sandbox', 'host_search', 'read_file', 'write_file', 'edit_file', 'delete_file', 'move_file', 'list_dir', 'apply_patch', 'skill']);

/**
 * What makes two asks the same kind: the tool, the rule that asked, and for
 * toolgate's general tools the wider scope "Always" offers (the command's
 * words and zone, the file's folder) — so a flood of `ls` never folds an
 * `rm` under it. A call that cannot be undone, and a general tool's call
 * with no such scope, are each a kind of their own: never folded.
 */
function kindOf(item) {
  const view = item.presentation !== null && typeof item.presentation === 'object' ? item.presentation : {};
  const own = `own\u0000${String(item.run_id)}\u0000${String(item.tool_call_id)}`;
  if (view.risk === 'dangerous') return own;
  const tool = String(item.tool_name ?? '');
  let scope = '';
  if (GENERAL_TOOLS.has(tool)) {
    const wider = Array.isArray(view.always_choices) ? view.always_choices.find((choice) => choice?.id === 'command' || choice?.id === 'folder') : undefined;
    if (typeof wider?.rule !== 'string' || wider.rule === '') return own;
    scope = wider.rule;
  }
  return `${tool}\u0000${JSON.stringify(view.asked_by ?? null)}\u0000${scope}`;
}

/**
 * Past the attention budget, the asks of one kind on one card: the first
 * shown, the others folded under it, where they wait until opened and
 * decided one by one. Nothing is decided for anyone.
 */
function kindBox(kind, cards) {
  let box = kindCache.get(kind);
  if (box === undefined) {
    const summary = document.createElement('summary');
    const rest = document.createElement('details');
    rest.className = 'kind-rest';
    rest.append(summary);
    rest.addEventListener('toggle', () => {
      if (rest.open) openKinds.add(kind);
      else openKinds.delete(kind);
      markSelected(false);
    });
    const note = document.createElement('p');
    note.className = 'kind-note';
    box = document.createElement('section');
    box.className = 'kind-group';
    box.append(note, rest);
    box.parts = { summary, rest, note };
    kindCache.set(kind, box);
  }
  const { summary, rest, note } = box.parts;
  note.textContent = `You decided ${budget.decided_last_hour} asks in the last hour, past your attention budget of ${budget.asks_per_hour}: asks of the same kind are gathered here and wait. Nothing is allowed without you.`;
  summary.textContent = `${cards.length - 1} more ask${cards.length === 2 ? '' : 's'} like this wait — show ${cards.length === 2 ? 'it' : 'them'}`;
  rest.open = openKinds.has(kind);
  // The first of the kind stands above the fold; one that stood there before and is gone or folded now leaves it.
  for (const child of [...box.children]) if (child !== note && child !== rest && child !== cards[0]) child.remove();
  if (box.children[1] !== cards[0]) box.insertBefore(cards[0], rest);
  reconcileAfter(rest, summary, cards.slice(1));
  return box;
}

/** Puts `nodes` after `first` in `parent`, in order. */
function reconcileAfter(parent, first, nodes) {
  const wanted = new Set([first, ...nodes]);
  for (const child of [...parent.children]) if (!wanted.has(child)) child.remove();
  nodes.forEach((node, index) => {
    if (parent.children[index + 1] !== node) parent.insertBefore(node, parent.children[index + 1] ?? null);
  });
}

function openRun(runId) {
  location.hash = `#run=${encodeURIComponent(runId)}`;
}

/** The pending calls in arrival order, grouped where they share a group id in one run. */
function render() {
  const list = $('items');
  const focusedKey = document.activeElement?.closest?.('.approval')?.dataset.key;
  const nodes = [];
  const groups = new Map();
  for (const item of pending.values()) {
    const groupKey = item.group_id ? keyOf(item.run_id, item.group_id) : keyOf(item.run_id, `call:${item.tool_call_id}`);
    if (!groups.has(groupKey)) groups.set(groupKey, []);
    groups.get(groupKey).push(item);
  }
  const liveCards = new Set();
  const liveGroups = new Set();
  for (const [groupKey, items] of groups) {
    const cards = items.map((item) => {
      const key = keyOf(item.run_id, item.tool_call_id);
      liveCards.add(key);
      let card = cardCache.get(key);
      if (card === undefined) {
        card = approvalCard(item, { onDecided, onOpenRun: openRun });
        card.shownAt = performance.now();
        cardCache.set(key, card);
      }
      return card;
    });
    if (items.length > 1 && items[0].group_id) {
      // A group box is made again when its members change; its cards (and what is typed in them) are kept.
      const signature = `${groupKey}\u0000${items.map((item) => item.tool_call_id).join('\u0000')}`;
      liveGroups.add(signature);
      let box = groupCache.get(signature);
      if (box === undefined) {
        box = groupBox({ runId: items[0].run_id, groupId: items[0].group_id, cards, onDecided });
        groupCache.set(signature, box);
      }
      nodes.push(box);
    } else nodes.push(...cards.map((card, index) => ({ card, item: items[index] })));
  }
  // Past the budget, single asks of one kind gather on one card, at the place of the first.
  const gathered = [];
  if (overBudget()) {
    const byKind = new Map();
    for (const node of nodes) {
      if (node.card === undefined) continue;
      const kind = kindOf(node.item);
      if (!byKind.has(kind)) byKind.set(kind, []);
      byKind.get(kind).push(node.card);
    }
    const placed = new Set();
    for (const node of nodes) {
      if (node.card === undefined) gathered.push(node);
      else {
        const kind = kindOf(node.item);
        const cards = byKind.get(kind);
        if (cards.length === 1) gathered.push(node.card);
        else if (!placed.has(kind)) {
          placed.add(kind);
          gathered.push(kindBox(kind, cards));
        }
      }
    }
  } else for (const node of nodes) gathered.push(node.card ?? node);
  for (const kind of [...kindCache.keys()]) if (!gathered.includes(kindCache.get(kind))) kindCache.delete(kind);
  reconcile(list, gathered);
  for (const key of [...cardCache.keys()]) if (!liveCards.has(key)) cardCache.delete(key);
  for (const key of [...groupCache.keys()]) if (!liveGroups.has(key)) groupCache.delete(key);
  $('empty').hidden = pending.size > 0;
  $('count').textContent = pending.size === 0 ? '' : String(pending.size);
  document.title = pending.size === 0 ? 'toolgate inbox' : `(${pending.size}) toolgate inbox`;
  const cards = cardsInOrder();
  selected = Math.min(selected, Math.max(0, cards.length - 1));
  const again = focusedKey === undefined ? undefined : cards.findIndex((card) => card.dataset.key === focusedKey);
  if (again !== undefined && again >= 0) selected = again;
  markSelected(false);
}

/**
 * Puts `nodes` in `list`, in order, moving only what is out of place, so a
 * card being typed in keeps its focus while others arrive or leave.
 */
function reconcile(list, nodes) {
  const wanted = new Set(nodes);
  for (const child of [...list.children]) if (!wanted.has(child)) child.remove();
  nodes.forEach((node, index) => {
    if (list.children[index] !== node) list.insertBefore(node, list.children[index] ?? null);
  });
}

function cardsInOrder() {
  // A card whose decision waits out its undo is not there to decide; one gathered with others of its kind waits until opened.
  return [...document.querySelectorAll('#items .approval')].filter((card) => card.closest('.held') === null && card.closest('details.kind-rest:not([open])') === null);
}

function markSelected(scroll) {
  const cards = cardsInOrder();
  const key = cards[selected]?.dataset.key;
  if (key !== selectedKey) {
    selectedKey = key;
    selectionChangedAt = performance.now();
  }
  cards.forEach((card, index) => card.classList.toggle('selected', index === selected));
  // Another approver hears at once which card this one turned to.
  if (key !== reportedKey) void reportPresence();
  if (scroll && cards[selected] !== undefined) {
    cards[selected].focus({ preventScroll: true });
    cards[selected].scrollIntoView({ block: 'nearest' });
  }
}

function typing(target) {
  return target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
}

function onKey(event) {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (typing(event.target)) {
    if (event.key === 'Escape') event.target.blur();
    return;
  }
  if (event.key === 'Escape') {
    cardsInOrder()[selected]?.actions.cancel();
    return;
  }
  // u takes back the last decision still waiting out its undo, from any view.
  if (event.key === 'u') {
    const undo = [...document.querySelectorAll('#toasts .undo')].filter((node) => node.textContent === 'Undo').at(-1);
    if (undo !== undefined) {
      event.preventDefault();
      undo.click();
    }
    return;
  }
  if ($('inbox').hidden) {
    if (event.key === 'Escape' || event.key === 'i') location.hash = '';
    return;
  }
  const cards = cardsInOrder();
  const card = cards[selected];
  const settled = card !== undefined && performance.now() - Math.max(card.shownAt ?? 0, selectionChangedAt) >= SETTLE_MS;
  if (['y', 's', 'a'].includes(event.key) && !settled) {
    event.preventDefault();
    return;
  }
  // The terminal's keys (y once, s session, a always, n deny, e edit), and the inbox's own to move and open a run.
  const actions = { j: () => move(1), k: () => move(-1), y: () => card?.actions.once(), s: () => card?.actions.session(), a: () => card?.actions.always(), n: () => card?.actions.deny(), e: () => card?.actions.edit(), r: () => card !== undefined && openRun(pending.get(card.dataset.key)?.run_id ?? '') };
  const action = actions[event.key];
  if (action === undefined) return;
  event.preventDefault();
  void action();
}

function move(step) {
  const count = cardsInOrder().length;
  if (count === 0) return;
  selected = (selected + step + count) % count;
  markSelected(true);
}

function route() {
  runController?.abort();
  runController = null;
  // Leaving the inbox closes its card for the others; coming back opens it again.
  setTimeout(() => void reportPresence(), 0);
  if (location.hash === '#insights') {
    showOnly('insights-view');
    void showInsights({ container: $('insights-view') });
    return;
  }
  if (location.hash === '#always') {
    showOnly('always-view');
    void showAlways({ container: $('always-view') });
    return;
  }
  if (location.hash === '#runs') {
    showOnly('runs-view');
    runController = new AbortController();
    void showRuns({ container: $('runs-view'), signal: runController.signal, onOpenRun: openRun });
    return;
  }
  const match = /^#run=(.+)$/.exec(location.hash);
  if (match === null) {
    showOnly('inbox');
    return;
  }
  showOnly('run-view');
  runController = new AbortController();
  void showRun({ container: $('run-view'), runId: decodeURIComponent(match[1]), signal: runController.signal, onBack: () => (location.hash = '') });
}

/**
 * Tells the server which card this page has open (the selected one, while
 * the inbox is shown and the page visible) and marks the cards other
 * approvers have open. A failure only means no one is told, this time.
 */
async function reportPresence() {
  if (streamController === null || streamController.signal.aborted) return;
  const shown = !$('inbox').hidden && document.visibilityState === 'visible';
  const key = shown ? cardsInOrder()[selected]?.dataset.key : undefined;
  reportedKey = key;
  const item = key === undefined ? undefined : pending.get(key);
  let answer;
  try {
    answer = await api('POST', '/approvals/presence', { open: item === undefined ? [] : [{ run_id: item.run_id, tool_call_id: item.tool_call_id }] });
  } catch {
    return;
  }
  const others = new Map((answer?.others ?? []).map((entry) => [keyOf(entry.run_id, entry.tool_call_id), entry.names]));
  for (const [cardKey, card] of cardCache) card.showClaimedBy?.(others.get(cardKey) ?? []);
}

/**
 * Remembers, in this browser, the name (never the token) this inbox is signed
 * in as: a one-tap link sent to someone else, opened here, then says whose it
 * is and decides nothing (decide.js).
 */
async function rememberWhoIsSignedIn() {
  try {
    const me = await api('GET', '/whoami');
    if (typeof me?.name === 'string') localStorage.setItem(SIGNED_IN_KEY, me.name);
    if (me?.attention !== undefined && me.attention !== null) {
      const before = overBudget();
      budget = me.attention;
      if (overBudget() !== before) render();
    }
  } catch {
    // An older server: links cannot tell, and say nothing.
  }
}

const SIGNED_IN_KEY = 'toolgate-signed-in-as';

function startInbox() {
  void rememberWhoIsSignedIn();
  // The hour of the attention budget moves on: where this person stands is read again each minute.
  clearInterval(budgetTimer);
  budgetTimer = setInterval(() => void rememberWhoIsSignedIn(), 60_000);
  streamController?.abort();
  streamController = new AbortController();
  clearInterval(presenceTimer);
  presenceTimer = setInterval(() => void reportPresence(), PRESENCE_MS);
  route();
  // The stream is opened first and the list read once it is open (and after every reconnect), so nothing falls between them.
  void followEvents({ path: '/events', onEvent, onState: setStreamState, onOpen: () => void loadApprovals(), signal: streamController.signal });
}

function showLogin(message) {
  clearInterval(presenceTimer);
  clearInterval(budgetTimer);
  streamController?.abort();
  runController?.abort();
  showOnly('login');
  $('login-error').textContent = message ?? '';
  $('token-input').focus();
}

function main() {
  whenUnauthorized(() => {
    forgetToken();
    localStorage.removeItem(SIGNED_IN_KEY);
    showLogin('The server refused this token. Paste a valid one, or open the login URL the server printed.');
  });
  $('login-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const value = $('token-input').value.trim();
    if (value === '') return;
    $('token-input').value = '';
    storeToken(value);
    startInbox();
  });
  document.addEventListener('keydown', onKey);
  $('notify-toggle').addEventListener('click', () => void toggleAttention());
  document.addEventListener('toolgate:held', () => render());
  // A page put away has nothing open; shown again, it says what it has.
  document.addEventListener('visibilitychange', () => void reportPresence());
  // The card a person clicks or tabs into is the one the keys act on.
  $('items').addEventListener('focusin', (event) => {
    const card = event.target instanceof Element ? event.target.closest('.approval') : null;
    const index = card === null ? -1 : cardsInOrder().indexOf(card);
    if (index !== -1 && index !== selected) {
      selected = index;
      markSelected(false);
    }
  });
  // "Waiting 4 min · times out in 6 min" stays true while the page is open.
  setInterval(() => {
    for (const card of document.querySelectorAll('#items .approval')) card.refreshWaiting?.();
  }, 15_000);
  window.addEventListener('hashchange', () => {
    if (!$('login').hidden) return;
    route();
  });
  if (takeToken() === null) showLogin();
  else startInbox();
}

main();
