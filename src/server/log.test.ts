import { describe, expect, it } from 'vitest';
import { createLogger } from './log.ts';

function capture(options: Parameters<typeof createLogger>[0] = {}) {
  const lines: string[] = [];
  const logger = createLogger({ ...options, write: (line) => lines.push(line), clock: () => new Date('2026-01-02T03:04:05.000Z') });
  return { logger, lines, records: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

describe('createLogger', () => {
  it('one JSON object per line: time, level, msg first, then the fields', () => {
    const { logger, lines } = capture();
    logger.info('request', { method: 'GET', status: 200 });
    expect(lines).toEqual(['{"time":"2026-01-02T03:04:05.000Z","level":"info","msg":"request","method":"GET","status":200}\n']);
  });

  it('drops what is below the level', () => {
    const { logger, records } = capture({ level: 'warn' });
    logger.debug('d');
    logger.info('i');
    logger.warn('w');
    logger.error('e');
    expect(records().map((record) => record.level)).toEqual(['warn', 'error']);
  });

  it('a field cannot overwrite time, level or msg', () => {
    const { logger, records } = capture();
    logger.info('real', { msg: 'forged', level: 'error', time: 'then' });
    expect(records()[0]).toEqual({ time: '2026-01-02T03:04:05.000Z', level: 'info', msg: 'real' });
  });

  it('secrets are redacted at any depth: tokens, authorization, passwords, and the policy\'s keys', () => {
    const { logger, lines } = capture({ redactKeys: ['ssn'] });
    logger.info('body', { body: { approved: true, token: 'tg_secret1', nested: { Authorization: 'Bearer tg_secret2', password: 'p4ss', ssn: '123' } } });
    expect(lines[0]).not.toMatch(/tg_secret|p4ss|123/);
    expect(JSON.parse(lines[0]!).body).toEqual({ approved: true, token: '[REDACTED]', nested: { Authorization: '[REDACTED]', password: '[REDACTED]', ssn: '[REDACTED]' } });
  });

  it('an error is logged with name, message and stack; a newline in a field stays inside its line', () => {
    const { logger, lines } = capture();
    logger.error('failed', { error: new TypeError('bad\nthing') });
    expect(lines).toHaveLength(1);
    expect(lines[0]!.split('\n')).toHaveLength(2);
    expect(JSON.parse(lines[0]!).error).toMatchObject({ name: 'TypeError', message: 'bad\nthing', stack: expect.stringContaining('log.test.ts') });
  });
});
