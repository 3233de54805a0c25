import { openApprovalsFile } from '../../approvals/approvals-file.ts';
import { resolvePolicyPath } from '../../config/load-policy-file.ts';
import { sanitizeTerminalText } from '../../core/sanitize-terminal-text.ts';
import { terminalSafeJson } from '../../core/terminal-safe-json.ts';
import { EXIT, type CliIo } from '../cli-io.ts';
import { policyForState, UsageError } from '../cli-support.ts';
import { parseCommandLine } from '../parse-command-line.ts';

export const APPROVALS_HELP = `Usage:
  toolgate approvals list [--policy FILE] [--json]
  toolgate approvals revoke ID... [--policy FILE]
  toolgate approvals revoke --all [--policy FILE]

"Approve always" decisions live in .toolgate/approvals.json beside the policy
(or where the policy's approvals.path says), never in the policy itself.
Without --policy: the policy the last \`toolgate run\` in this directory used
(the built-in default policy's are in ./.toolgate/), else ./toolgate.yaml.

list shows them; revoke forgets them (an id prefix of 6+ characters is
enough). A running agent sees a revoke at its next call. An approval is
bound to the tool's identity (for an MCP tool: its server and definition);
once toolgate has seen the tool under another identity, list marks the
approval VOIDED: it no longer applies, and the next call asks again.
Gateways and runs change the file under a lock (approvals.json.lock), so
two of them approving at once both keep their approvals.

Options:
  --policy FILE   whose approvals (default: see above)
  --json          list: one JSON object per approval
  --all           revoke: every approval
  -h, --help      this help

Exit codes: 0 done, 1 revoke found nothing to revoke, 2 usage, 3 policy invalid.
`;

/** `toolgate approvals list | revoke`. */
export async function runApprovalsCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandLine({
    argv,
    allowPositionals: true,
    options: {
      policy: { type: 'string' },
      json: { type: 'boolean' },
      all: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [action, ...ids] = positionals;
  if (values.help || action === undefined) {
    io.stdout.write(APPROVALS_HELP);
    return values.help ? EXIT.ok : EXIT.usage;
  }
  const { loaded, note } = await policyForState({ policy: values.policy, io });
  if (note !== undefined) io.stderr.write(`${sanitizeTerminalText(note)}\n`);
  const file = openApprovalsFile({
    path: resolvePolicyPath({ loaded, value: loaded.policy.document.approvals?.path, fallback: 'approvals.json' }),
    redactKeys: loaded.policy.redact.keys,
  });
  if (action === 'list') {
    if (ids.length > 0) throw new UsageError('list takes no ids');
    const records = file.list();
    if (values.json) {
      for (const record of records) io.stdout.write(`${terminalSafeJson(record)}\n`);
      return EXIT.ok;
    }
    if (records.length === 0) {
      io.stdout.write(`no "approve always" decisions in ${sanitizeTerminalText(file.path)}\n`);
      return EXIT.ok;
    }
    for (const record of records) {
      const safe = (text: string) => sanitizeTerminalText(text);
      io.stdout.write(`${safe(record.id)}  ${safe(record.created_at)}  ${safe(record.tool)}${record.identity === null ? '' : ` [${safe(record.identity)}]`}\n`);
      io.stdout.write(`    ${safe(record.description)}\n    payload: ${safe(record.payload_preview)}\n`);
      if (record.voided_at !== undefined) {
        io.stdout.write(`    VOIDED since ${safe(record.voided_at)}: the tool's definition or server changed${record.voided_for === undefined ? '' : ` (it is now ${safe(record.voided_for)})`}; this approval no longer applies, and the next call asks again\n`);
      }
    }
    return EXIT.ok;
  }
  if (action === 'revoke') {
    if (values.all === true && ids.length > 0) throw new UsageError('give ids or --all, not both');
    if (values.all !== true && ids.length === 0) throw new UsageError('revoke needs at least one id (see `toolgate approvals list`) or --all');
    const short = ids.find((id) => id.length < 6);
    if (short !== undefined) throw new UsageError(`id ${JSON.stringify(short)} is too short: give at least 6 characters`);
    const removed = values.all === true ? file.revokeAll() : file.revoke(ids);
    for (const record of removed) io.stdout.write(`revoked ${sanitizeTerminalText(record.id)}  ${sanitizeTerminalText(record.tool)}: ${sanitizeTerminalText(record.description)}\n`);
    if (removed.length === 0) {
      io.stderr.write('nothing matched: no approval was revoked\n');
      return EXIT.blockedOrDenied;
    }
    return EXIT.ok;
  }
  throw new UsageError(`unknown action ${JSON.stringify(action)}: use list or revoke`);
}
