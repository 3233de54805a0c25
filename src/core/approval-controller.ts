import type { ApprovalRequest, GateContext, RunMode } from './types.ts';

/** What the run mode makes of an ask before any person is involved. */
export type ModeResolution =
  | { action: 'approve'; reason: string }
  | { action: 'deny'; reason: string }
  | { action: 'ask-person' };

/**
 * The controller: applies the run mode to an ask. It never knows what a tool
 * does; blocks never reach it, so no mode can turn a block into an allow.
 *
 * | mode        | required ask | soft ask |
 * |-------------|--------------|----------|
 * | interactive | a person     | a person |
 * | approve_all | approve      | approve  |
 * | strict      | deny         | approve  |
 * | auto_deny   | deny         | deny     |
 *
 * @example
 * resolveMode({ request, mode: 'strict', context }) // { action: 'deny', ... } for a required ask
 */
export function resolveMode(options: {
  request: ApprovalRequest;
  mode: RunMode | undefined;
  context: GateContext;
  autoApproveInDaemon: boolean;
}): ModeResolution {
  const { request, mode, context } = options;
  switch (mode) {
    case 'approve_all':
      return { action: 'approve', reason: 'approved by mode approve_all' };
    case 'strict':
      return request.required
        ? { action: 'deny', reason: 'denied by mode strict: this call needs an explicit approval' }
        : { action: 'approve', reason: 'approved by mode strict: the tool marks this ask as not required' };
    case 'auto_deny':
      return { action: 'deny', reason: 'denied by mode auto_deny' };
    case 'interactive':
    case undefined:
      if (context.daemon === true && options.autoApproveInDaemon) {
        return { action: 'approve', reason: 'approved automatically: daemon run with auto_approve_in_daemon' };
      }
      return { action: 'ask-person' };
    default:
      // A mode no one defined (a typo in a flag that slipped past validation) denies.
      return { action: 'deny', reason: `denied: unknown mode ${JSON.stringify(String(mode))}` };
  }
}
