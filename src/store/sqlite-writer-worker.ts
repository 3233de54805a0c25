/**
 * The writer thread of `threadWriter`: its own connection to the store's
 * file and the same group commit and writes as `inlineWriter`. Messages
 * that arrive while a batch syncs form the next batch. A `close` is
 * answered after every write sent before it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createGroupCommit } from './sqlite-group-commit.ts';
import { openSqliteDatabase } from './sqlite-schema.ts';
import { serializeError, type WriterMessage, type WriterReply } from './sqlite-writer.ts';
import { createSqliteWrites, type WriteKind } from './sqlite-writes.ts';

const options = workerData as { file: string; busyTimeoutMs: number; maxBatch: number };
const port = parentPort!;
const reply = (message: WriterReply) => port.postMessage(message);

const database = openSqliteDatabase({ file: options.file, busyTimeoutMs: options.busyTimeoutMs });
const commits = createGroupCommit({ database, maxBatch: options.maxBatch });
const writes = createSqliteWrites(database);

port.on('message', (message: WriterMessage) => {
  if (message.kind === 'close') {
    commits.flush();
    // After the answers of the writes just committed (they are sent from their promises' callbacks).
    setImmediate(() => {
      database.close();
      reply({ id: message.id, ok: true, value: undefined });
    });
    return;
  }
  const write = writes[message.kind as WriteKind] as (request: unknown) => unknown;
  commits.write(() => write(message.request)).then(
    (value) => reply({ id: message.id, ok: true, value }),
    (error: unknown) => reply({ id: message.id, ok: false, error: serializeError(error) }),
  );
});
