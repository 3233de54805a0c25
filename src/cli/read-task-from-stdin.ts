import { UsageError } from './cli-support.ts';

/** More than this is not a task but a mistake (a log piped in by accident). */
const MAXIMUM_TASK_BYTES = 1_000_000;

/**
 * The task of `echo "fix the test" | toolgate run` (pipeline mode): all of
 * stdin, trimmed. Throws `UsageError` when it is empty or too large.
 *
 * @example
 * const task = await readTaskFromStdin(process.stdin);
 */
export async function readTaskFromStdin(stdin: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array);
    size += buffer.length;
    if (size > MAXIMUM_TASK_BYTES) throw new UsageError(`the task on stdin is larger than ${MAXIMUM_TASK_BYTES} bytes: give a shorter one`);
    chunks.push(buffer);
  }
  const task = Buffer.concat(chunks).toString('utf8').trim();
  if (task === '') throw new UsageError('give a task: toolgate run "what the agent should do", or on stdin: echo "what the agent should do" | toolgate run (or --demo)');
  return task;
}
