import { createHash, randomUUID } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { fingerprint } from '../core/fingerprint.ts';

/** The parts of a tool's definition that approvals are bound to. */
const BOUND_FIELDS = ['name', 'title', 'description', 'inputSchema', 'annotations'] as const;

const FIELD_NAMES: Record<(typeof BOUND_FIELDS)[number], string> = {
  name: 'name',
  title: 'title',
  description: 'description',
  inputSchema: 'input schema',
  annotations: 'annotations',
};

/**
 * sha256 of the canonical form of a tool's name, title, description, input
 * schema and annotations: what a person approved. A server that changes any
 * of them after an approval (a "rug pull") gets a different hash, so the
 * approval no longer applies.
 *
 * @example
 * toolDefinitionHash({ name: 'echo', inputSchema: { type: 'object' } }) // 'sha256:…'
 */
export function toolDefinitionHash(tool: Tool): string {
  const bound: Record<string, unknown> = {};
  for (const field of BOUND_FIELDS) bound[field] = tool[field] ?? null;
  let canonical: string;
  try {
    canonical = fingerprint(bound);
  } catch {
    // Not expected from parsed JSON; a hash that matches nothing fails closed.
    canonical = `unhashable:${randomUUID()}`;
  }
  return `sha256:${createHash('sha256').update(canonical).digest('hex')}`;
}

/**
 * The `ToolDeclaration.identity` of an upstream tool: the server (name and how
 * it is started) and the definition hash. Session and "always" approvals are
 * keyed by it.
 *
 * @example
 * toolIdentity({ server: 'files', serverIdentity: 'ab12…', definitionHash: 'sha256:…' }) // 'mcp:files:ab12…:sha256:…'
 */
export function toolIdentity(options: { server: string; serverIdentity: string; definitionHash: string }): string {
  return `mcp:${options.server}:${options.serverIdentity}:${options.definitionHash}`;
}

/**
 * Which bound parts differ between two definitions of a tool, in words.
 *
 * @example
 * changedFields(before, after) // ['description', 'input schema']
 */
export function changedFields(before: Tool, after: Tool): string[] {
  const changed: string[] = [];
  for (const field of BOUND_FIELDS) {
    if (safeFingerprint(before[field] ?? null) !== safeFingerprint(after[field] ?? null)) changed.push(FIELD_NAMES[field]);
  }
  return changed;
}

function safeFingerprint(value: unknown): string {
  try {
    return fingerprint(value);
  } catch {
    return randomUUID();
  }
}
