import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain JavaScript module the page loads as it is (no types, no build step).
import { createSseParser } from './static/sse-parser.js';

interface ParsedEvent {
  id: string;
  event: string;
  data: string;
}

function parse(chunks: readonly string[]): { events: ParsedEvent[]; lastEventId: string } {
  const events: ParsedEvent[] = [];
  const parser = createSseParser((event: ParsedEvent) => events.push(event));
  for (const chunk of chunks) parser.push(chunk);
  return { events, lastEventId: parser.lastEventId() };
}

describe('createSseParser', () => {
  it("reads seed 004's wire form: id and data per event, a blank line between", () => {
    const { events, lastEventId } = parse(['id: 1\ndata: {"type":"run_paused","data":{}}\n\nid: 2\ndata: {"type":"run_resumed","data":{}}\n\n']);
    expect(events).toEqual([
      { id: '1', event: 'message', data: '{"type":"run_paused","data":{}}' },
      { id: '2', event: 'message', data: '{"type":"run_resumed","data":{}}' },
    ]);
    expect(lastEventId).toBe('2');
  });

  it('puts an event together from chunks split anywhere, CRLF and CR line ends included', () => {
    const text = 'id: 41\r\ndata: {"a":\r\ndata: 1}\r\n\r\nid: 42\rdata: x\r\r';
    for (let cut = 0; cut <= text.length; cut += 1) {
      const { events } = parse([text.slice(0, cut), text.slice(cut)]);
      expect(events, `cut at ${cut}`).toEqual([
        { id: '41', event: 'message', data: '{"a":\n1}' },
        { id: '42', event: 'message', data: 'x' },
      ]);
    }
    // One character at a time, too.
    expect(parse([...text]).events).toHaveLength(2);
  });

  it('ignores heartbeat comments and never dispatches an event without data', () => {
    const { events, lastEventId } = parse([': ping\n\n', 'id: 9\n\n', ': ping\n\n']);
    expect(events).toEqual([]);
    expect(lastEventId).toBe('9');
  });

  it('keeps the last id for events without one, takes data without its single leading space, and an event name', () => {
    const { events } = parse(['id: 5\ndata:  two spaces\n\nevent: custom\ndata:nospace\n\n']);
    expect(events).toEqual([
      { id: '5', event: 'message', data: ' two spaces' },
      { id: '5', event: 'custom', data: 'nospace' },
    ]);
  });

  it('drops an event cut off by the end of the stream, and an id with a NUL in it', () => {
    const { events, lastEventId } = parse(['id: 3\ndata: done\n\nid: 4\ndata: half', 'id: 7\u0000\n']);
    expect(events).toEqual([{ id: '3', event: 'message', data: 'done' }]);
    expect(lastEventId).toBe('4');
  });

  it('forgets a half-received event on reset, keeping the last id for the reconnect', () => {
    const events: ParsedEvent[] = [];
    const parser = createSseParser((event: ParsedEvent) => events.push(event));
    parser.push('id: 10\ndata: a\n\ndata: part');
    parser.reset();
    parser.push('\n\nid: 11\ndata: b\n\n');
    expect(events.map((event) => event.data)).toEqual(['a', 'b']);
    expect(parser.lastEventId()).toBe('11');
  });
});
