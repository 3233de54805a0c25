/**
 * The conversation at the terminal approver's prompt: the box, then keys
 * until one answers. A wide approval ("for this session", "always") asks
 * for the same key again, with what it covers; a denial asks for a reason;
 * viewing, editing and help come back to the question.
 */
import { styleText } from 'node:util';
import type { ApprovalDecision, ApprovalScope } from '../../core/types.ts';
import { sanitizeTerminalText } from '../../core/sanitize-terminal-text.ts';
import type { KeyPress, PromptInput, TerminalOutput } from './prompt-input.ts';
import { renderDecisionLine } from './render-decision-line.ts';
import { showInPager } from './show-in-pager.ts';
import { choiceLabel, type Layout, type PromptPlan } from './terminal-prompt-plan.ts';

const MAX_REASON_LENGTH = 1000;

/** One conversation: what is asked, where it is read and written. */
export interface ConversationOptions {
  plan: PromptPlan;
  prompt: PromptInput;
  output: TerminalOutput;
  /** Read for PAGER. */
  env: NodeJS.ProcessEnv;
  /** The layout now: the terminal may have been resized since the box was drawn. */
  layout: () => Layout;
}

/**
 * Asks about `plan` at `prompt` until a key answers, and writes the decision
 * line. Rejects with the prompt's `TerminalPromptError` when it stops.
 *
 * @example
 * const decision = await converse({ plan, prompt, output, env, layout: () => terminalLayout({ output, env }) });
 */
export async function converse(options: ConversationOptions): Promise<ApprovalDecision> {
  const { plan, prompt, output, env, layout } = options;
  const finish = (decision: ApprovalDecision): ApprovalDecision => {
    output.write(renderDecisionLine({ outcome: decision, subject: plan.subject, color: layout().color }));
    return decision;
  };
  const letters = [...plan.actions.keys()];
  const answers = letters.filter((letter) => plan.actions.get(letter) !== 'help');
  const choices = `${answers.slice(0, -1).join(', ')} or ${answers[answers.length - 1]}`;
  output.write(plan.render({ layout: layout(), full: false }));
  for (;;) {
    // Only keys pressed after the question is on screen answer it; the prompt says so when it dropped any.
    if (!prompt.settled) await prompt.settle();
    const { color } = layout();
    output.write(`${color ? styleText('bold', 'approve?', { validateStream: false }) : 'approve?'} [${letters.join('/')}] `);
    const key = await prompt.readKey();
    const letter = key.kind === 'character' ? key.character.toLowerCase() : undefined;
    const action = letter === undefined ? undefined : plan.actions.get(letter);
    // Raw mode echoes nothing; show the key that was taken (an unknown one is named in the hint).
    if (prompt.raw) output.write(action === undefined ? '\n' : `${letter}\n`);
    switch (action) {
      case 'once':
        return finish({ approved: true, scope: 'once' });
      case 'session':
      case 'always': {
        const confirmed = await confirmWide(plan, prompt, { output, letter: letter!, scope: action });
        if (confirmed !== undefined) return finish({ approved: true, scope: action satisfies ApprovalScope, ...(confirmed.alwaysScope === undefined ? {} : { alwaysScope: confirmed.alwaysScope }) });
        break;
      }
      case 'deny': {
        const decision = await askReason(prompt, output);
        if (decision !== undefined) return finish(decision);
        break;
      }
      case 'view':
        await showInPager({ text: plan.render({ layout: layout(), full: true }), env, output, prompt, rows: layout().rows });
        output.write(plan.render({ layout: layout(), full: false }));
        break;
      case 'edit': {
        const edited = await plan.edit?.(prompt, layout());
        if (edited !== undefined) return finish({ approved: true, scope: 'once', args: edited.args });
        // An editor may have taken over the screen: show what is being decided again.
        output.write(plan.render({ layout: layout(), full: false }));
        break;
      }
      case 'help':
        output.write(`${plan.help.join('\n')}\n`);
        break;
      default:
        output.write(`${hint({ key, letter, raw: prompt.raw, choices })}\n`);
    }
  }
}

/**
 * The second step of a wide approval: what it covers, then the same key
 * again approves it; any other key takes it back, and is not taken as an
 * answer (as Esc does in the web inbox). Where "always" offers choices,
 * they are numbered, narrowest first: the same key again takes the first
 * (as the web inbox's first choice is checked), a number another.
 */
async function confirmWide(plan: PromptPlan, prompt: PromptInput, options: { output: TerminalOutput; letter: string; scope: 'session' | 'always' }): Promise<{ alwaysScope?: string } | undefined> {
  const { output, letter, scope } = options;
  const name = scope === 'session' ? '“For this session”' : '“Always”';
  const choices = scope === 'always' ? plan.alwaysChoices : [];
  if (choices.length === 0) {
    const covers = plan.covers[scope] ?? 'later calls with an equal approval payload';
    output.write(`${sanitizeTerminalText(`${name} lets these run without asking: ${covers}.`, { collapse: true })}\n`);
  } else {
    output.write(`${name} lets calls run without asking from now on, until revoked (toolgate approvals). Which calls?\n`);
    choices.forEach((choice, index) => {
      const line = `  ${index + 1}  ${choiceLabel(choice)}${choice.rule === undefined ? '' : ` — rule: ${choice.rule}`}`;
      output.write(`${sanitizeTerminalText(line, { collapse: true })}\n`);
    });
  }
  // A double press is not a second step: only a key pressed after this was on screen answers it.
  prompt.unsettle();
  await prompt.settle();
  const pick = choices.length === 0 ? '' : ` (the first), or 1-${choices.length}`;
  output.write(`press ${letter} again to approve ${scope === 'session' ? 'for this session' : 'always'}${pick}, any other key to choose again: `);
  const key = await prompt.readKey();
  const character = key.kind === 'character' ? key.character.toLowerCase() : undefined;
  const number = character !== undefined && /^[1-9]$/.test(character) ? Number(character) : undefined;
  const chosen = character === letter ? choices[0] : number !== undefined ? choices[number - 1] : undefined;
  const confirmed = character === letter || chosen !== undefined;
  if (prompt.raw) output.write(confirmed ? `${character}\n` : '\n');
  if (!confirmed) {
    output.write('not approved: choose again\n');
    return undefined;
  }
  return chosen?.id === undefined ? {} : { alwaysScope: chosen.id };
}

async function askReason(prompt: PromptInput, output: TerminalOutput): Promise<ApprovalDecision | undefined> {
  output.write(prompt.raw ? 'reason for the model (Enter for none, Esc to go back): ' : 'reason for the model (Enter for none): ');
  const typed = await prompt.readLine({ maxLength: MAX_REASON_LENGTH });
  if (typed === undefined) {
    output.write('not denied: choose again\n');
    return undefined;
  }
  const reason = typed.trim();
  return reason === '' ? { approved: false, scope: 'once' } : { approved: false, scope: 'once', reason };
}

function hint(options: { key: KeyPress; letter: string | undefined; raw: boolean; choices: string }): string {
  const { key, choices } = options;
  if (key.kind === 'text') return options.raw ? `pasted text is ignored: press a single key (${choices})` : `type one letter, then Enter (${choices})`;
  if (options.letter !== undefined) return `unknown key "${sanitizeTerminalText(options.letter)}": press ${choices} (? for help)`;
  return `press ${choices} (? for help)`;
}
