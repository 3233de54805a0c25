import { z } from 'zod';
import type { ApprovalCheckResult } from '../core/tool-declaration.ts';
import type { BuiltinTool } from '../tools/builtin-tool.ts';

export const WORKER_TOOL_NAME = 'call_worker';

const workerSchema = z.strictObject({
  task: z.string().min(1).describe('What the worker should do, in full: it sees nothing of this conversation.'),
});

/**
 * `call_worker`: runs a child agent with its own task (seed 000). It asks
 * before every worker by default — a worker can do everything the parent
 * can — unless the policy says `tools.call_worker: allow`. The child runs
 * through the same gate, so it shares the parent's controller (mode,
 * approver) and memory (seed 002): what was approved for the session is
 * approved for the worker too.
 *
 * @example
 * const worker = createWorkerTool({ askFirst: true, runChild: (task, signal) => runChildAgent(task, signal) });
 */
export function createWorkerTool(options: {
  askFirst: boolean;
  runChild: (task: string, signal: AbortSignal | undefined) => Promise<string>;
}): BuiltinTool<z.infer<typeof workerSchema>, string> {
  return {
    name: WORKER_TOOL_NAME,
    description: 'Delegate a self-contained task to a worker agent that has the same tools and the same approvals; returns its final answer.',
    inputSchema: workerSchema,
    checkApproval(call): ApprovalCheckResult {
      if (!options.askFirst) return null;
      const parsed = workerSchema.safeParse(call.args);
      const task = parsed.success ? parsed.data.task : JSON.stringify(call.args);
      return {
        tool: call.tool,
        description: 'Start a worker agent with this task',
        payload: { task },
        presentation: { type: 'text', content: task },
      };
    },
    async execute(args, executionOptions) {
      const { task } = workerSchema.parse(args);
      const answer = await options.runChild(task, executionOptions?.signal);
      return answer === '' ? '(the worker finished without an answer)' : answer;
    },
  };
}
