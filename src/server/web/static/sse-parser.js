/**
 * Server-sent events, parsed from the text of a streamed response (the
 * inbox reads `GET /events` with fetch, because EventSource cannot send an
 * Authorization header). Follows the HTML standard's rules: lines end with
 * LF, CRLF or CR (also split across chunks); `:` starts a comment (the
 * server's heartbeat); `id:` sets the last event id (kept across events, as
 * `Last-Event-ID` on reconnect); `data:` lines are joined with newlines; a
 * blank line dispatches the event, unless it has no data.
 *
 * Plain JavaScript, no build step: the page and the Node tests import it.
 */

/**
 * A parser: `push(text)` as chunks arrive; `onEvent({ id, event, data })` for each complete event.
 *
 * @example
 * const parser = createSseParser((event) => console.log(event.id, JSON.parse(event.data)));
 * parser.push('id: 7\ndata: {"type":"text"}\n\n'); // logs '7' and the object
 * parser.lastEventId(); // '7'
 */
export function createSseParser(onEvent) {
  let buffer = '';
  let lastId = '';
  let eventType = '';
  let data = [];
  // A chunk that ended in CR: an LF at the start of the next belongs to the same line end.
  let skipLeadingLf = false;

  function line(text) {
    if (text === '') {
      if (data.length > 0) onEvent({ id: lastId, event: eventType === '' ? 'message' : eventType, data: data.join('\n') });
      data = [];
      eventType = '';
      return;
    }
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'id' && !value.includes('\u0000')) lastId = value;
    else if (field === 'event') eventType = value;
  }

  return {
    push(chunk) {
      let text = String(chunk);
      if (skipLeadingLf && text.startsWith('\n')) text = text.slice(1);
      skipLeadingLf = false;
      buffer += text;
      let start = 0;
      for (let index = 0; index < buffer.length; index += 1) {
        const code = buffer.charCodeAt(index);
        if (code !== 0x0a && code !== 0x0d) continue;
        line(buffer.slice(start, index));
        if (code === 0x0d) {
          if (index + 1 < buffer.length) {
            if (buffer.charCodeAt(index + 1) === 0x0a) index += 1;
          } else {
            skipLeadingLf = true;
          }
        }
        start = index + 1;
      }
      buffer = buffer.slice(start);
    },
    /** The id of the last event seen (`''` before any): what `Last-Event-ID` carries on reconnect. */
    lastEventId() {
      return lastId;
    },
    /** Forgets a half-received event (the connection dropped); the last id stays. */
    reset() {
      buffer = '';
      data = [];
      eventType = '';
      skipLeadingLf = false;
    },
  };
}
