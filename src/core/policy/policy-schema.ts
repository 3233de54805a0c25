import { z } from 'zod';

/**
 * The policy file's schema: the one source of both validation and the
 * published JSON Schema (`toolgate schema`). It describes the file as written;
 * `normalizePolicy` turns it into the form the gate uses (aliases resolved,
 * patterns compiled, durations in milliseconds).
 *
 * Every object is strict: an unknown key is an error, because a typo such as
 * `tool:` for `tools:` must never silently weaken a policy.
 */

const decision = z
  .enum(['allow', 'ask', 'block', 'preApproved', 'blocked'])
  .describe('allow: runs at once; ask: a person decides; block: never runs. preApproved and blocked are aliases of allow and block.');

const duration = z
  .union([z.number().nonnegative(), z.string().regex(/^\d+(\.\d+)?\s*(ms|s|m|h)$/)])
  .describe('A duration: seconds as a number, or a string such as "500ms", "30s", "5m", "1h".');

/** Who hears of a pending call (issue 35): channel names told at once, or stages told `after` it was asked (escalation). */
const notifyRoute = z
  .array(
    z.union([
      z.string().min(1),
      z.strictObject({
        channels: z.array(z.string().min(1)).min(1),
        after: duration.optional().describe('How long after the call was asked these channels are told, if it still waits (default: at once).'),
      }),
    ]),
  )
  .describe('Channels (names from server.channels), or stages {channels, after}: each stage is told once its time comes, while the call still waits; a decision anywhere ends the chain.');

const nameExamples = z
  .strictObject({
    match: z.array(z.string()).optional().describe('Inputs the pattern must match; checked when the policy loads.'),
    not_match: z.array(z.string()).optional().describe('Inputs the pattern must not match; checked when the policy loads.'),
  })
  .describe('Examples checked when the policy loads: a failing example is a load error.');

const pattern = z
  .union([
    z.string(),
    z.strictObject({
      pattern: z.string(),
      examples: nameExamples.optional(),
    }),
  ])
  .describe('An RE2 pattern that must match the whole input (linear-time, no backtracking). `.` matches newlines; prefix (?i) for case-insensitive.');

const argumentCondition = z
  .union([
    z
      .string()
      .describe(
        'A full-match pattern on the value: strings as written, other values as JSON. An allow rule never covers a string that is not a normalised path (with "..", "." or "//" segments): such a call asks.',
      ),
    z
      .strictObject({
        inside: z.string().min(1).describe('An absolute directory (or relative, with relative_to): the value, normalised, must be it or below it.'),
        relative_to: z
          .string()
          .min(1)
          .optional()
          .describe('What a relative value (and a relative `inside`) is resolved against: an absolute directory, or `policy` for the policy file\'s directory. Without it a relative value never matches.'),
      })
      .describe('A path condition: `.`, `..` and repeated slashes are resolved before comparing (as strings; symbolic links are not followed).'),
  ]);

const argumentRule = z.strictObject({
  args: z
    .record(z.string(), argumentCondition)
    .describe('Argument path (`to`, `options.force`, `files[0]`) to a condition on its value: a full-match pattern, or {inside: DIR} for a path. Every listed argument must match.'),
  decision,
  reason: z.string().optional(),
  description: z.string().optional(),
  required: z.boolean().optional(),
  examples: z
    .strictObject({
      match: z.array(z.record(z.string(), z.unknown())).optional(),
      not_match: z.array(z.record(z.string(), z.unknown())).optional(),
    })
    .optional()
    .describe('Argument objects this rule must / must not match; checked when the policy loads.'),
  notify: notifyRoute.optional().describe('Who hears of the calls this rule asks about, instead of the tool\'s or the server\'s route.'),
});

const webhookChannel = z.strictObject({
  type: z.literal('webhook'),
  url: z.string().regex(/^https?:\/\/[^\s]+$/).describe('Where the JSON body is POSTed.'),
  secret_env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).optional().describe('The environment variable holding the signing secret (HMAC-SHA256 over "timestamp.body", sent as toolgate-signature).'),
  secret_file: z.string().min(1).optional().describe('A file holding the signing secret (relative to the policy file; yours alone, not a symlink).'),
  timeout: duration.optional().describe('How long one try may take before it counts as failed. Default 10s.'),
  retry_after: duration.optional().describe('The wait before the first retry; each later one waits twice as long, at most 5 minutes. Default 5s.'),
  max_attempts: z.number().int().min(1).max(50).optional().describe('Tries before a delivery is given up on (dead: shown in the inbox and in /metrics). Default 8.'),
});

const environmentName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/);

const emailChannel = z.strictObject({
  type: z.literal('email'),
  smtp: z.strictObject({
    host: z.string().min(1),
    port: z.number().int().min(1).max(65535),
    secure: z.boolean().optional().describe('TLS from the start (port 465); otherwise STARTTLS when the server offers it. Default false.'),
    user_env: environmentName.optional().describe('The environment variable holding the SMTP user name (no login when absent).'),
    password_env: environmentName.optional().describe('The environment variable holding the SMTP password.'),
  }),
  from: z.string().min(3).describe('The sender: "toolgate <toolgate@example.com>".'),
  to: z
    .array(z.strictObject({ approver: z.string().min(1).describe('The approver (a token\'s name) the message\'s link decides as.'), address: z.string().regex(/^[^\s@<>]+@[^\s@<>]+$/) }))
    .min(1)
    .describe('Who is sent each pending approval, each with a link of their own.'),
  link_ttl: duration.optional().describe('How long a message\'s link can decide. Default 1h.'),
  timeout: duration.optional().describe('How long one try may take. Default 10s.'),
  retry_after: duration.optional().describe('The wait before the first retry; each later one waits twice as long, at most 5 minutes. Default 5s.'),
  max_attempts: z.number().int().min(1).max(50).optional().describe('Tries before a message is given up on. Default 8.'),
});

const slackChannel = z.strictObject({
  type: z.literal('slack'),
  token_env: environmentName.describe('The environment variable holding the bot token (xoxb-…), with chat:write.'),
  signing_secret_env: environmentName.describe("The environment variable holding the app's signing secret: interactivity requests are checked against it."),
  channel: z.string().regex(/^[A-Z0-9]{6,20}$/).describe('The Slack channel id (C0123ABCD) messages go to.'),
  users: z
    .record(z.string().regex(/^[UW][A-Z0-9]{6,20}$/), z.string().min(1))
    .describe('Slack user id → toolgate approver (a token\'s name): who may decide by the buttons. Anyone else is told so in the thread, and decides nothing.'),
  api_url: z.string().regex(/^https?:\/\/[^\s]+$/).optional().describe("The Slack Web API's address (default https://slack.com/api/)."),
  timeout: duration.optional(),
  retry_after: duration.optional(),
  max_attempts: z.number().int().min(1).max(50).optional(),
});

/** Where pending approvals are sent (issue 35). */
const notificationChannel = z.discriminatedUnion('type', [webhookChannel, emailChannel, slackChannel]);

const toolEntry = z.union([
  decision,
  z.strictObject({
    decision: decision.optional(),
    description: z.string().optional().describe('Shown to the person who is asked.'),
    reason: z.string().optional().describe('Why the tool is blocked (or asks); the model sees it.'),
    required: z.boolean().optional().describe('false makes the ask soft: strict mode approves it (seed 001).'),
    preApproved: z.boolean().optional().describe('Alias (seed 000): true is allow, false is ask.'),
    blocked: z.boolean().optional().describe('Alias (seed 000): true is block.'),
    blockReason: z.string().optional().describe('Alias (seed 000) of reason for a blocked tool.'),
    rules: z
      .array(argumentRule)
      .optional()
      .describe('Argument conditions, first match wins; the tool-level decision applies when none matches.'),
    notify: notifyRoute.optional().describe("Who hears of this tool's pending calls, instead of server.notify."),
  }),
]);

const zoneDecision = z.enum(['allow', 'ask', 'block', 'preApproved', 'blocked']);

const zone = z.strictObject({
  name: z.string().min(1),
  root: z.string().min(1).describe('Relative to the policy file.'),
  mode: z.enum(['ro', 'rw']).default('ro'),
  suffixes: z.array(z.string()).optional().describe('Only files ending with one of these may be touched.'),
  hidden: z
    .array(z.string().min(1))
    .optional()
    .describe('Files inside the zone that no tool may read, write, move or delete, in .gitignore syntax relative to the zone root (".env", ".env.*", "!.env.example", "*.pem", "secrets/"). A search below a directory that holds one (grep -r, rg) asks; the OS sandbox hides them.'),
  approval: z
    .strictObject({
      read: zoneDecision.optional(),
      write: zoneDecision.optional(),
      delete: zoneDecision.optional(),
    })
    .optional(),
});

const shellRule = z.strictObject({
  match: z.string().min(1).describe('A command prefix, matched on whole words: "git status" covers "git status -s", not "git statusx".'),
  decision: decision.optional(),
  allowed: z.boolean().optional().describe('Alias (seed 001): false is block.'),
  approval: z.boolean().optional().describe('Alias (seed 001): false is allow, true is ask.'),
  description: z.string().optional(),
  reason: z.string().optional(),
  paths_in: z.array(z.string()).optional().describe('Zone names: the rule applies only if every path-like argument resolves inside them.'),
  examples: nameExamples.optional(),
  notify: notifyRoute.optional().describe('Who hears of the commands this rule asks about, instead of the server\'s route.'),
});

/** A server's resources or prompts: a decision, or a default and rules matching `field` (uri or name). */
const mcpAccess = (field: 'uri' | 'name', what: string) =>
  z
    .union([
      decision,
      z.strictObject({
        default: decision.optional().describe(`For ${what} no rule matches (the server's default when absent).`),
        rules: z.array(z.strictObject({ [field]: z.string().describe(`An RE2 pattern matching the whole ${field}.`), decision })).optional(),
      }),
    ])
    .optional()
    .describe(`Whether clients may list and use this server's ${what}; the server's default when absent. Every matching rule speaks; the most restrictive wins.`);

const mcpServer = z.strictObject({
  command: z.string().optional(),
  args: z.array(z.string()).optional().describe('May use ${VAR}: the variable of toolgate\'s environment (the policy keeps no secret).'),
  env: z.record(z.string(), z.string()).optional().describe('May use ${VAR}: the variable of toolgate\'s environment.'),
  env_from: z.array(z.string()).optional().describe('Variables of toolgate\'s environment passed on to the server as they are.'),
  cwd: z.string().optional(),
  url: z.string().optional(),
  headers: z.record(z.string(), z.string()).optional().describe('May use ${VAR}: the variable of toolgate\'s environment.'),
  default: decision.optional().describe('For this server\'s tools that have no rule (ask when absent).'),
  trust_annotations: z.boolean().optional().describe('Whether readOnlyHint may lower ask to allow for this server.'),
  tools: z.record(z.string(), toolEntry).optional(),
  filter: z
    .strictObject({ allow: z.array(pattern).optional(), deny: z.array(pattern).optional() })
    .optional(),
  ask_when: z.array(pattern).optional().describe("This server's tools whose name (on the server) matches any of these always ask."),
  ask_always: z.boolean().optional().describe('Every call to this server\'s tools asks unless blocked.'),
  namespace: z.string().optional().describe('Prefix for this server\'s tool names when they collide.'),
  notify: notifyRoute.optional().describe("Who hears of this server's pending calls, instead of server.notify."),
  redact: z.strictObject({ keys: z.array(z.string()).optional() }).optional(),
  resources: mcpAccess('uri', 'resources (reads, subscriptions and their completions)'),
  prompts: mcpAccess('name', 'prompts (and their completions)'),
  sampling: decision.optional().describe("Whether the server may have the client's model write a message (sampling/createMessage); the server's default when absent."),
  elicitation: decision
    .optional()
    .describe('Whether the server may ask the person questions through the client (elicitation/create); allowed unless the server is blocked (ask is allow: the person sees the question and may decline).'),
});

export const policySchema = z
  .strictObject({
    $schema: z.string().optional(),
    version: z.literal(1).optional().describe('The policy format version.'),
    mode: z
      .enum(['interactive', 'approve_all', 'strict', 'auto_deny'])
      .optional()
      .describe('How asks are answered. Without a mode and without a terminal, asks are denied.'),
    on_deny: z.enum(['continue', 'stop']).optional().describe('continue: the model sees the denial and adapts; stop: the run ends.'),
    approval_timeout: duration.optional().describe('How long a person has to answer; then the call is denied as "timed out".'),
    check_timeout: duration.optional().describe('How long a tool\'s own approval check may take before the call is blocked (default 10s).'),
    auto_approve_in_daemon: z.boolean().optional().describe('Daemon runs approve asks automatically (never blocks). Default false.'),
    tools: z.record(z.string(), toolEntry).optional().describe('Per tool: allow | ask | block, or an object.'),
    filter: z
      .strictObject({
        allow: z.array(pattern).optional().describe('If present, only tools matching one of these are shown to the model.'),
        deny: z.array(pattern).optional().describe('Tools matching any of these are hidden. Deny wins over allow.'),
      })
      .optional()
      .describe('What the model may see: hidden tools are never listed, and calls to them are blocked.'),
    ask_when: z.array(pattern).optional().describe('Tools whose name matches any of these always ask (seed 004 conditional).'),
    ask_always: z.boolean().optional().describe('Every tool call asks unless blocked (seed 004 always).'),
    unknown_tools: z
      .strictObject({
        decision: z.enum(['allow', 'ask', 'block']).optional().describe('For tools with no rule and no declaration of their own (default ask).'),
        dangerous_keywords: z
          .union([z.boolean(), z.array(z.string())])
          .optional()
          .describe('Seed 003 heuristic: such tools whose name or description contains one of these words ask even when the default is allow. true uses the built-in list.'),
      })
      .optional(),
    redact: z
      .strictObject({
        keys: z
          .array(z.string())
          .optional()
          .describe(
            'Argument keys (any depth, case-insensitive, matched when a key contains one) whose values are replaced by [REDACTED] in logs, events and transcripts, and masked in prompts (the person deciding can reveal them). Default: password, passwd, passphrase, secret, token, api_key, access_key, private_key, authorization, cookie, credential; a list here replaces the default.',
          ),
        outputs: z.boolean().optional().describe('Hide tool outputs from the audit log and events.'),
      })
      .optional(),
    audit: z
      .strictObject({
        path: z.string().optional().describe('JSONL audit log, relative to the policy file (default .toolgate/audit.jsonl).'),
        enabled: z.boolean().optional(),
        allow_in_writable_zone: z
          .boolean()
          .optional()
          .describe('true accepts an audit.path inside a rw zone (toolgate then guards the file and every folder above it); without it such a path is refused.'),
      })
      .optional(),
    approvals: z
      .strictObject({
        path: z.string().optional().describe('The "approve always" file, relative to the policy file (default .toolgate/approvals.json).'),
        allow_in_writable_zone: z
          .boolean()
          .optional()
          .describe('true accepts an approvals.path inside a rw zone (toolgate then guards the file and every folder above it); without it such a path is refused.'),
      })
      .optional(),
    fs: z.strictObject({ zones: z.array(zone).optional() }).optional(),
    attention: z
      .strictObject({
        asks_per_hour: z
          .number()
          .int()
          .positive()
          .optional()
          .describe('The asks one person should decide in an hour at most (an attention budget: a tired reviewer approves the harmful ask with the rest). Past it, the web inbox gathers asks of the same kind (tool, rule, and for the shell and file tools the same command or folder) on one card, the rest folded under it and waiting, never decided for anyone; `toolgate insights` flags the hours past it.'),
      })
      .optional()
      .describe('How much of people\'s attention the policy may ask for.'),
    shell: z
      .strictObject({
        default: z
          .union([decision, z.strictObject({ allowed: z.boolean().optional(), approval: z.boolean().optional() })])
          .optional(),
        network: z
          .union([z.boolean(), z.strictObject({ allow_domains: z.array(z.string()) })])
          .optional(),
        timeout: duration.optional(),
        max_output: z.number().int().positive().optional().describe('Bytes of output kept per stream.'),
        rules: z.array(shellRule).optional(),
      })
      .optional(),
    mcp: z.strictObject({ servers: z.record(z.string(), mcpServer).optional() }).optional(),
    server: z
      .strictObject({
        log_level: z.enum(['debug', 'info', 'warn', 'error']).optional().describe('The least severe level `toolgate serve` logs (JSON lines on stderr). Default info.'),
        verbose_logging: z.boolean().optional().describe('Also log request bodies (redacted; tokens never). Default false.'),
        trace_enabled: z.boolean().optional().describe('OpenTelemetry spans for each request, run and decision. Default false.'),
        metrics_enabled: z.boolean().optional().describe('Serve Prometheus metrics at GET /metrics. Default true.'),
        models: z
          .array(z.string().min(1))
          .optional()
          .describe('Model ids a run may choose with `model` (besides the server\'s own --model); never a file path a client names.'),
        allowed_hosts: z
          .array(z.string().min(1))
          .optional()
          .describe('More Host header values the server answers (host or host:port, e.g. behind a proxy); anything else is refused (DNS rebinding).'),
        max_steps: z.number().int().positive().optional().describe('Model steps per run before it stops. Default 30.'),
        instance_lease: duration
          .optional()
          .describe('Servers sharing a PostgreSQL store: how long a server\'s lease on its runs lasts without renewal (renewed every third of it); the running runs of a server that stops renewing are taken over by another after it. Default 30s.'),
        max_concurrent_runs: z
          .number()
          .int()
          .positive()
          .optional()
          .describe('Runs one server drives at once (models and tools working); more wait their turn, claimed, in order. Default 16.'),
        public_url: z
          .string()
          .regex(/^https?:\/\/[^\s]+$/)
          .optional()
          .describe('Where people reach this server (behind a proxy: its public address): the links notifications carry start with it. Default: the address it listens on.'),
        channels: z
          .record(z.string().regex(/^[a-z][a-z0-9_-]{0,63}$/), notificationChannel)
          .optional()
          .describe('Where a pending approval is sent, by name (each delivered from a durable outbox in the store: retried with backoff, never lost to a restart). Secrets come from the environment or a file, never from the policy.'),
        notify: notifyRoute.optional().describe('Who hears of every pending approval (tools.<name>.notify and mcp.servers.<name>.notify route their calls otherwise). Default: every channel, at once.'),
      })
      .optional()
      .describe('`toolgate serve`: logs, traces, metrics, models, hosts, notifications.'),
    sandbox: z
      .strictObject({
        os: z.enum(['required', 'preferred', 'off']).optional(),
        fallback: z.enum(['fail_fast', 'refuse_tools']).optional(),
        hosts: z
          .enum(['wrap', 'off'])
          .optional()
          .describe(
            "The shell commands of the agent hosts (toolgate hook): wrap runs each one the policy lets run inside this OS sandbox, made for that decision (writes only in the zones, .git read-only, toolgate's own files hidden, the network as shell.network says), where the host takes a changed command (Claude Code, Codex, Gemini CLI, opencode); elsewhere, or without a sandbox, sandbox.fallback decides. off (default): the host runs them as they are.",
          ),
        vcs_metadata: z
          .enum(['read_only', 'writable_when_approved', 'writable'])
          .optional()
          .describe('Whether shell commands may write .git (and ~/.gitconfig, ~/.config/git) inside writable zones: read_only (default), writable_when_approved (only commands a person approved), writable.'),
        profile: z
          .strictObject({
            read_write: z.array(z.string()).optional().describe('Paths commands may write (relative to the policy file).'),
            read_only: z.array(z.string()).optional().describe('Paths commands may read. The system paths programs need are always included.'),
            hidden: z.array(z.string()).optional().describe('Paths commands may not see, even inside the paths above.'),
            network: z
              .union([z.boolean(), z.strictObject({ allow_domains: z.array(z.string()) })])
              .optional()
              .describe('What commands may reach; absent leaves shell.network as it is.'),
          })
          .optional()
          .describe('An explicit OS sandbox profile (seed 001): intersected with the one derived from the policy, so it can only take permissions away, never add any.'),
      })
      .optional(),
  })
  .describe('A toolgate policy: one file that decides which tool calls run, ask or are blocked.');

/** The policy as written in the file, after validation. */
export type PolicyDocument = z.infer<typeof policySchema>;
export type ToolEntryDocument = z.infer<typeof toolEntry>;
export type PatternDocument = z.infer<typeof pattern>;

/** The JSON Schema of the policy file, for editors (`toolgate schema`). */
export function policyJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(policySchema, { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>;
  return { ...schema, $id: 'https://toolgate.dev/schema/policy-v1.json', title: 'toolgate policy' };
}
