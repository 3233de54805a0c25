/**
 * `GET /approvals` written a page at a time: the service's pending approvals
 * are read one page per read of the response stream, so a server holding
 * 10,000 paused runs never builds the whole list, its views and one JSON
 * text of it in memory at once, and reads no faster than the client takes
 * the bytes. The bytes are those `c.json({ approvals })` would send: each
 * page holds the JSON texts of its views.
 */
import type { Logger } from '../log.ts';

/** Approvals per page asked of the service. */
export const APPROVALS_PAGE_SIZE = 500;

/**
 * The streaming response. The first page is read before answering, so a
 * service that fails at once still gets its JSON error (the caller's
 * `await` throws). A page that fails later can no longer change the status:
 * the connection is cut (the client sees a truncated body, never a
 * well-formed partial list) and the error is logged.
 *
 * @example
 * app.get('/approvals', async (c) => approvalsStreamResponse({ pages: service.pendingApprovalPages!(principal, APPROVALS_PAGE_SIZE), logger }));
 */
export async function approvalsStreamResponse(options: { pages: AsyncIterable<readonly string[]>; logger: Logger; principal: string }): Promise<Response> {
  const { logger } = options;
  const pages = options.pages[Symbol.asyncIterator]();
  const encoder = new TextEncoder();
  let first: IteratorResult<readonly string[]> | undefined = await pages.next();
  let written = 0;
  let finished = false;

  /** The next non-empty page, or undefined once there are none. */
  const nextPage = async (): Promise<readonly string[] | undefined> => {
    for (;;) {
      const result = first ?? (await pages.next());
      first = undefined;
      if (result.done === true) return undefined;
      if (result.value.length > 0) return result.value;
    }
  };
  const stop = async () => {
    if (finished) return;
    finished = true;
    await pages.return?.();
  };

  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const page = await nextPage();
          const opening = written === 0 ? '{"approvals":[' : '';
          if (page === undefined) {
            finished = true;
            controller.enqueue(encoder.encode(`${opening}]}`));
            controller.close();
            return;
          }
          const items = page.join(',');
          controller.enqueue(encoder.encode(`${opening}${written === 0 ? '' : ','}${items}`));
          written += page.length;
        } catch (error) {
          logger.error('GET /approvals failed after the first page; the response is cut short', { principal: options.principal, written, error: String(error) });
          finished = true;
          controller.error(error);
        }
      },
      async cancel() {
        await stop();
      },
    },
    // Nothing is read ahead: a page is read when the connection takes the last one.
    { highWaterMark: 0 },
  );
  return new Response(body, { status: 200, headers: { 'Content-Type': 'application/json' } });
}
