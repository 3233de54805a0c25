const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export interface Spinner {
  start(label: string): void;
  stop(): void;
}

/**
 * A one-line spinner on a terminal while the model thinks; it erases itself
 * when stopped, and does nothing when `enabled` is false (not a terminal,
 * NO_COLOR), so logs stay clean.
 *
 * @example
 * const spinner = createSpinner({ output: process.stderr, enabled: process.stderr.isTTY });
 * spinner.start('thinking'); await model(); spinner.stop();
 */
export function createSpinner(options: { output: { write(text: string): unknown }; enabled: boolean; intervalMs?: number }): Spinner {
  let timer: ReturnType<typeof setInterval> | undefined;
  let frame = 0;
  return {
    start(label) {
      if (!options.enabled || timer !== undefined) return;
      const draw = () => options.output.write(`\r${FRAMES[frame++ % FRAMES.length]} ${label}…`);
      draw();
      timer = setInterval(draw, options.intervalMs ?? 80);
      timer.unref?.();
    },
    stop() {
      if (timer === undefined) return;
      clearInterval(timer);
      timer = undefined;
      options.output.write('\r\u001b[2K');
    },
  };
}
