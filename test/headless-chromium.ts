/**
 * Debian's Chromium, headless, for the tests that drive the web pages
 * (playwright-core, no browser download): loopback only, nothing fetched in
 * the background. And `until`, the polling the tests wait with.
 */
import { chromium, type Browser } from 'playwright-core';

/**
 * @example
 * const browser = await launchChromium();
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/**
 * Polls `read` until it gives a value, or throws after `timeoutMs` naming `what`.
 *
 * @example
 * const mail = await until('a message', () => smtp.messages[0]);
 */
export async function until<Value>(what: string, read: () => Value | undefined | Promise<Value | undefined>, timeoutMs = 20_000): Promise<Value> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
