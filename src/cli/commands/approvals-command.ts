import { openApprovalsFile, scopeOfRecord, type ApprovalRecord } from '../../approvals/approvals-file.ts';
import { openSharedStore } from '../shared-store-option.ts';
import { approvalsFilePath } from '../../config/load-policy-file.ts';
import { sanitizeTerminalText } from '../../core/sanitize-terminal-text.ts';
import { terminalSafeJson } from '../../core/terminal-safe-json.ts';
import { EXIT, type CliIo } from '../cli-io.ts';
import { policyForState, UsageError } from '../cli-support.ts';
import { parseCommandLine } from '../parse-command-line.ts';

export const APPROVALS_HELP = `Usage:
  toolgate approvals list [--policy FILE | --store URL] [--json]
  toolgate approvals revoke ID... [--policy FILE | --store URL]
  toolgate approvals revoke --all [--policy FILE | --store URL]

"Approve always" decisions live in .toolgate/approvals.json beside the policy
(or where the policy's approvals.path says), never in the policy itself.
Without --policy: the policy the last \`toolgate run\` in this directory used
(the built-in default policy's are in ./.toolgate/), else ./toolgate.yaml.
Servers sharing a PostgreSQL store (toolgate serve --store postgres://...)
keep theirs in that store instead: name it with --store.

list shows them; revoke forgets them (an id prefix of 6+ characters is
enough). A running agent sees a revoke at its next call (servers sharing a
store, as soon as the store tells them: within moments). An approval is
bound to the tool's identity (for an MCP tool: its server and definition);
once toolgate has seen the tool under another identity, list marks the
approval VOIDED: it no longer applies, and the next call asks again.
Gateways and runs change the file under a lock (approvals.json.lock), so
two of them approving at once both keep their approvals.

Options:
  --policy FILE   whose approvals (default: see above)
  --store URL     the approvals of the servers sharing this PostgreSQL store
  --json          list: one JSON object per approval
  --all           revoke: every approval
  -h, --help      this help

Exit codes: 0 done, 1 revoke found nothing to revoke (or the store cannot be
reached), 2 usage, 3 policy invalid.
`;

/** `toolgate approvals list | revoke`. */
export async function runApprovalsCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandLine({
    argv,
    allowPositionals: true,
    options: {
      policy: { type: 'string' },
      store: { type: 'string' },
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
  checkUsage(action, ids, values.all === true);
  if (values.store !== undefined && values.policy !== undefined) throw new UsageError('give --policy or --store, not both');
  if (values.store !== undefined) {
    const { store, shared, where } = await openSharedStore(values.store, 'toolgate approvals');
    try {
      return await act({ action, ids, all: values.all === true, json: values.json === true, io, kept: { where, list: () => shared.listAlways(), revoke: (which) => shared.revokeAlways(which) } });
    } finally {
      await store.close();
    }
  }
  const { loaded, note } = await policyForState({ policy: values.policy, io });
  if (note !== undefined) io.stderr.write(`${sanitizeTerminalText(note)}\n`);
  const file = openApprovalsFile({
    path: approvalsFilePath(loaded),
    redactKeys: loaded.policy.redact.keys,
  });
  const kept: KeptApprovals = { where: file.path, list: async () => file.list(), revoke: async (which) => (which === 'all' ? file.revokeAll() : file.revoke(which)) };
  return act({ action, ids, all: values.all === true, json: values.json === true, io, kept });
}

/** Where the approvals are: the file beside a policy, or the store servers share. */
interface KeptApprovals {
  where: string;
  list(): Promise<ApprovalRecord[]>;
  revoke(which: readonly string[] | 'all'): Promise<ApprovalRecord[]>;
}

async function act(options: { action: string; ids: string[]; all: boolean; json: boolean; io: CliIo; kept: KeptApprovals }): Promise<number> {
  const { action, ids, io, kept } = options;
  if (action === 'list') {
    const records = await kept.list();
    if (options.json) {
      for (const record of records) io.stdout.write(`${terminalSafeJson(record)}\n`);
      return EXIT.ok;
    }
    if (records.length === 0) {
      io.stdout.write(`no "approve always" decisions in ${sanitizeTerminalText(kept.where)}\n`);
      return EXIT.ok;
    }
    for (const record of records) {
      const safe = (text: string) => sanitizeTerminalText(text);
      io.stdout.write(`${safe(record.id)}  ${safe(record.created_at)}  ${safe(record.tool)}${record.identity === null ? '' : ` [${safe(record.identity)}]`}\n`);
      // A scope (issue 38) is shown as the rule it amounts to; its kept match is what the payload line would repeat.
      const rule = scopeOfRecord(record)?.rule;
      io.stdout.write(`    ${safe(record.description)}\n    ${rule === undefined ? `payload: ${safe(record.payload_preview)}` : `rule: ${safe(rule)}`}\n`);
      if (record.voided_at !== undefined) {
        io.stdout.write(`    VOIDED since ${safe(record.voided_at)}: the tool's definition or server changed${record.voided_for === undefined ? '' : ` (it is now ${safe(record.voided_for)})`}; this approval no longer applies, and the next call asks again\n`);
      }
    }
    return EXIT.ok;
  }
  if (action === 'revoke') {
    const removed = await kept.revoke(options.all ? 'all' : ids);
    for (const record of removed) io.stdout.write(`revoked ${sanitizeTerminalText(record.id)}  ${sanitizeTerminalText(record.tool)}: ${sanitizeTerminalText(record.description)}\n`);
    if (removed.length === 0) {
      io.stderr.write('nothing matched: no approval was revoked\n');
      return EXIT.blockedOrDenied;
    }
    return EXIT.ok;
  }
  throw new UsageError(`unknown action ${JSON.stringify(action)}: use list or revoke`);
}

/** Bad usage, found before any file or store is opened. */
function checkUsage(action: string, ids: readonly string[], all: boolean): void {
  if (action !== 'list' && action !== 'revoke') throw new UsageError(`unknown action ${JSON.stringify(action)}: use list or revoke`);
  if (action === 'list') {
    if (ids.length > 0) throw new UsageError('list takes no ids');
    if (all) throw new UsageError('--all is for revoke');
    return;
  }
  if (all && ids.length > 0) throw new UsageError('give ids or --all, not both');
  if (!all && ids.length === 0) throw new UsageError('revoke needs at least one id (see `toolgate approvals list`) or --all');
  const short = ids.find((id) => id.length < 6);
  if (short !== undefined) throw new UsageError(`id ${JSON.stringify(short)} is too short: give at least 6 characters`);
}
