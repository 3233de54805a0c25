/**
 * A hook exits as soon as its answer is written, since work still pending
 * (a read that hangs past its deadline) must not keep it alive until the
 * host's own timeout, after which the host runs the call. A module of its
 * own: the hook's client (hook-client-main.ts) loads nothing else.
 *
 * @example
 * await exitAsHook(2);
 */
export async function exitAsHook(code: number): Promise<never> {
  await new Promise<void>((resolve) => process.stderr.write('', () => process.stdout.write('', () => resolve())));
  process.exit(code);
}
