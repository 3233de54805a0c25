/**
 * A channel that tells people of a pending approval (issue 35), and the
 * channels the policy's `server.channels` names, with their secrets read
 * from the environment or a file (never from the policy itself).
 */
import path from 'node:path';
import { durationMs, formatPath } from '../../core/policy/normalize-policy.ts';
import type { LoadedPolicy } from '../../config/load-policy-file.ts';
import { ToolgateError } from '../../core/errors/toolgate-error.ts';
import type { PolicyDocument } from '../../core/policy/policy-schema.ts';
import type { StoredApproval, StoredDelivery } from '../../store/store.ts';
import type { NotifyStage } from './notifier.ts';
import { readSecretFile } from '../read-secret-file.ts';
import { createEmailChannel } from './email-channel.ts';
import { createSlackChannel } from './slack-channel.ts';
import { createWebhookChannel } from './webhook-channel.ts';

/** How a try went; `receipt` is what a receiver answered that a later update needs (a Slack message's channel and ts). */
export type SendOutcome = { ok: true; receipt?: string } | { ok: false; error: string };

/** A decision on a call a channel told people of: what its "decided" deliveries say. */
export interface DecidedCall {
  runId: string;
  toolCallId: string;
  approved: boolean;
  decidedBy: string;
  via: string | null;
  reason: string | null;
}

/** What a channel enqueues for one pending approval: `key` tells its deliveries apart (a recipient), '' for one delivery. */
export interface PlannedDelivery {
  key: string;
  /** The JSON text the outbox keeps and `send` reads: never a credential (a link is kept as its fields, signed when sent). */
  body: string;
}

export interface NotificationChannel {
  /** Its name in `server.channels`. */
  name: string;
  kind: 'webhook' | 'email' | 'slack';
  /** The deliveries to enqueue for a pending approval (one, or one per recipient). */
  deliveriesFor(options: { approval: StoredApproval; deliveryId: (key: string) => string; publicUrl: string; now: number }): PlannedDelivery[];
  /** How long one try may take. */
  timeoutMs: number;
  /** The wait before the first retry; each later one waits twice as long (at most `MAX_RETRY_WAIT_MS`). */
  retryAfterMs: number;
  /** Tries before a delivery is given up on. */
  maxAttempts: number;
  /**
   * What to enqueue once the call was decided (anywhere), for a channel that
   * updates what it sent (Slack edits its message); none for the others.
   */
  deliveriesOnDecision?(options: { decided: DecidedCall; requestedId: (key: string) => string }): PlannedDelivery[];
  /** Sends one delivery; `publicUrl` and `now` are the server's, never the outbox row's; `receiptOf` reads what an earlier delivery was answered. */
  send(delivery: StoredDelivery, signal: AbortSignal, context: { publicUrl: string; now: number; receiptOf: (id: string) => Promise<string | null> }): Promise<SendOutcome>;
}

/** The longest wait between two tries of one delivery. */
export const MAX_RETRY_WAIT_MS = 5 * 60_000;

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_RETRY_AFTER_MS = 5_000;
const DEFAULT_MAX_ATTEMPTS = 8;
const DEFAULT_LINK_TTL_MS = 3_600_000;

/**
 * The channels of the policy, and which of them hear of every pending
 * approval (`server.notify`, default all). Throws a `USAGE` error naming
 * the key for a secret that is missing or empty, or a `notify` entry that
 * names no channel.
 *
 * @example
 * const { channels, notify } = channelsFromPolicy({ loaded, env: process.env });
 */
export function channelsFromPolicy(options: { loaded: LoadedPolicy; env: NodeJS.ProcessEnv; /** Signs one-tap links (the server's record key). */ linkKey: Buffer }): { channels: Map<string, NotificationChannel>; route: (tool: string, askedBy?: string) => readonly NotifyStage[] } {
  const { loaded, env } = options;
  const settings = loaded.policy.document.server ?? {};
  const channels = new Map<string, NotificationChannel>();
  for (const [name, config] of Object.entries(settings.channels ?? {})) {
    const key = `server.channels.${name}`;
    const timeoutMs = durationMs(config.timeout) ?? DEFAULT_TIMEOUT_MS;
    const retryAfterMs = durationMs(config.retry_after) ?? DEFAULT_RETRY_AFTER_MS;
    const maxAttempts = config.max_attempts ?? DEFAULT_MAX_ATTEMPTS;
    if (timeoutMs < 100) throw usage(`${key}.timeout in ${loaded.path} is ${timeoutMs} ms; give it at least 100ms`);
    if (config.type === 'webhook') {
      const secret = channelSecret({ key, secretEnv: config.secret_env, secretFile: config.secret_file, loaded, env });
      channels.set(name, createWebhookChannel({ name, url: config.url, secret, timeoutMs, retryAfterMs, maxAttempts }));
      continue;
    }
    if (config.type === 'slack') {
      const token = env[config.token_env]?.trim() ?? '';
      if (token === '') throw usage(`${key}.token_env in ${loaded.path} names ${config.token_env}, which is not set in toolgate's environment: set it to the Slack bot token (xoxb-…)`);
      const signingSecret = env[config.signing_secret_env]?.trim() ?? '';
      if (signingSecret === '') throw usage(`${key}.signing_secret_env in ${loaded.path} names ${config.signing_secret_env}, which is not set in toolgate's environment: set it to the Slack app's signing secret`);
      channels.set(name, createSlackChannel({ name, token, signingSecret, channel: config.channel, users: config.users, ...(config.api_url === undefined ? {} : { apiUrl: config.api_url }), timeoutMs, retryAfterMs, maxAttempts }));
      continue;
    }
    const { smtp } = config;
    const user = smtp.user_env === undefined ? undefined : env[smtp.user_env];
    if (smtp.user_env !== undefined && (user === undefined || user === '')) throw usage(`${key}.smtp.user_env in ${loaded.path} names ${smtp.user_env}, which is not set in toolgate's environment: set it to the SMTP user name`);
    const password = smtp.password_env === undefined ? undefined : env[smtp.password_env];
    if (smtp.password_env !== undefined && (password === undefined || password === '')) throw usage(`${key}.smtp.password_env in ${loaded.path} names ${smtp.password_env}, which is not set in toolgate's environment: set it to the SMTP password`);
    const linkTtlMs = durationMs(config.link_ttl) ?? DEFAULT_LINK_TTL_MS;
    if (linkTtlMs < 60_000 || linkTtlMs > 7 * 24 * 3_600_000) throw usage(`${key}.link_ttl in ${loaded.path} is ${linkTtlMs} ms; give it between 1m and 7 days (168h)`);
    channels.set(
      name,
      createEmailChannel({
        name,
        smtp: { host: smtp.host, port: smtp.port, secure: smtp.secure ?? false, ...(user === undefined ? {} : { user }), ...(password === undefined ? {} : { password }) },
        from: config.from,
        to: config.to,
        key: options.linkKey,
        linkTtlMs,
        timeoutMs,
        retryAfterMs,
        maxAttempts,
      }),
    );
  }
  const stagesOf = (route: NotifyRouteDocument, where: string): NotifyStage[] => {
    const stages = route.map((entry, index): NotifyStage => {
      const names = typeof entry === 'string' ? [entry] : entry.channels;
      names.forEach((name, position) => {
        if (!channels.has(name)) {
          const known = [...channels.keys()];
          const at = typeof entry === 'string' ? `${where}[${index}]` : `${where}[${index}].channels[${position}]`;
          throw usage(`${at} in ${loaded.path} names ${JSON.stringify(name)}, which is not a channel; the channels are ${known.length === 0 ? 'none (server.channels is empty)' : known.join(', ')}`);
        }
      });
      return { afterMs: typeof entry === 'string' ? 0 : (durationMs(entry.after) ?? 0), channels: [...new Set(names)] };
    });
    // Stages told at the same time are one stage, later ones follow in time order, and a channel is told once, at its first stage.
    const merged: NotifyStage[] = [];
    const told = new Set<string>();
    for (const stage of stages.sort((left, right) => left.afterMs - right.afterMs)) {
      const fresh = stage.channels.filter((name) => !told.has(name));
      for (const name of fresh) told.add(name);
      if (fresh.length === 0) continue;
      const last = merged.at(-1);
      if (last !== undefined && last.afterMs === stage.afterMs) merged[merged.length - 1] = { afterMs: last.afterMs, channels: [...last.channels, ...fresh] };
      else merged.push({ afterMs: stage.afterMs, channels: fresh });
    }
    return merged;
  };
  const fallback = settings.notify === undefined ? [{ afterMs: 0, channels: [...channels.keys()] }] : stagesOf(settings.notify, 'server.notify');
  const byTool = new Map<string, NotifyStage[]>();
  // A rule's route, by the label the gate names it with when it asks (`shell.rules[2]`, `tools.deploy.rules[0]`).
  const byRule = new Map<string, NotifyStage[]>();
  for (const [tool, entry] of Object.entries(loaded.policy.document.tools ?? {})) {
    if (typeof entry !== 'object') continue;
    if (entry.notify !== undefined) byTool.set(tool, stagesOf(entry.notify, `tools.${tool}.notify`));
    (entry.rules ?? []).forEach((rule, index) => {
      const label = formatPath(['tools', tool, 'rules', index]);
      if (rule.notify !== undefined) byRule.set(label, stagesOf(rule.notify, `${label}.notify`));
    });
  }
  (loaded.policy.document.shell?.rules ?? []).forEach((rule, index) => {
    if (rule.notify !== undefined) byRule.set(`shell.rules[${index}]`, stagesOf(rule.notify, `shell.rules[${index}].notify`));
  });
  // An MCP server's tools are named NAMESPACE__TOOL (the namespace defaults to the server's name).
  const byServer = Object.entries(loaded.policy.document.mcp?.servers ?? {}).flatMap(([name, server]) => (server.notify === undefined ? [] : [{ prefix: `${server.namespace ?? name}__`, stages: stagesOf(server.notify, `mcp.servers.${name}.notify`) }]));
  const ruleRoute = (askedBy: string | undefined): NotifyStage[] | undefined => {
    if (askedBy === undefined) return undefined;
    for (const [label, stages] of byRule) if (askedBy === label || askedBy.startsWith(`${label} `)) return stages;
    return undefined;
  };
  // The longest namespace that names the tool: servers `a` and `a__b` route `a__b__x` by `a__b`.
  byServer.sort((left, right) => right.prefix.length - left.prefix.length);
  const route = (tool: string, askedBy?: string): readonly NotifyStage[] => ruleRoute(askedBy) ?? byTool.get(tool) ?? byServer.find((server) => tool.startsWith(server.prefix))?.stages ?? fallback;
  return { channels, route };
}

type NotifyRouteDocument = NonNullable<NonNullable<PolicyDocument['server']>['notify']>;

function channelSecret(options: { key: string; secretEnv: string | undefined; secretFile: string | undefined; loaded: LoadedPolicy; env: NodeJS.ProcessEnv }): string {
  const { key, loaded } = options;
  if ((options.secretEnv === undefined) === (options.secretFile === undefined)) {
    throw usage(`${key} in ${loaded.path} needs its signing secret from exactly one place: secret_env (an environment variable's name) or secret_file (a file's path)`);
  }
  if (options.secretEnv !== undefined) {
    const value = options.env[options.secretEnv]?.trim() ?? '';
    if (value === '') throw usage(`${key}.secret_env in ${loaded.path} names ${options.secretEnv}, which is not set (or empty) in toolgate's environment: set it to the webhook's signing secret`);
    return checkedSecret(value, `${key}.secret_env (${options.secretEnv})`, loaded);
  }
  const file = path.resolve(loaded.directory, options.secretFile!);
  const value = readSecretFile({ file, what: `${key}'s signing secret` });
  if (value === undefined || value === '') throw usage(`${key}.secret_file in ${loaded.path} names ${file}, which does not exist or is empty: write the webhook's signing secret there`);
  return checkedSecret(value, `${key}.secret_file (${file})`, loaded);
}

function checkedSecret(value: string, where: string, loaded: LoadedPolicy): string {
  if (value.length < 16) throw usage(`${where} in ${loaded.path}: the signing secret is ${value.length} characters; use at least 16 (a random one: openssl rand -hex 32)`);
  return value;
}

function usage(message: string): ToolgateError {
  return new ToolgateError({ code: 'USAGE', message });
}
