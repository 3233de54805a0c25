import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { eventsQuery, runsPageQuery, sqlFilter } from './sql-filter.ts';

describe('sqlFilter', () => {
  it('numbers PostgreSQL placeholders and keeps the values in the order they appear', () => {
    const filter = sqlFilter('postgres');
    filter.add('owner = ?', 'alice');
    filter.add('decision IS NULL');
    filter.add('seq > ?', 7);
    expect(`${filter.where()} LIMIT ${filter.value(11)}`).toBe('WHERE owner = $1 AND decision IS NULL AND seq > $2 LIMIT $3');
    expect(filter.values).toEqual(['alice', 7, 11]);
    expect(sqlFilter('postgres').where()).toBe('');
  });

  it('binds SQLite values positionally: a hostile value stays a value', () => {
    const database = new Database(':memory:');
    database.exec("CREATE TABLE t (owner TEXT, seq INTEGER); INSERT INTO t VALUES ('alice', 1), ('bob', 2), ('alice', 3)");
    const filter = sqlFilter('sqlite');
    filter.add('owner = ?', "alice' OR '1'='1");
    expect(database.prepare(`SELECT seq FROM t ${filter.where()}`).pluck().all(...filter.values)).toEqual([]);
    const page = sqlFilter('sqlite');
    page.add('owner = ?', 'alice');
    page.add('seq > ?', 1);
    expect(database.prepare(`SELECT seq FROM t ${page.where()} ORDER BY seq LIMIT ${page.value(5)}`).pluck().all(...page.values)).toEqual([3]);
    database.close();
  });
});

describe('the queries both stores share', () => {
  it('reads events after an id, of a run or an owner, in each dialect', () => {
    expect(eventsQuery('postgres', { afterId: 40, runId: 'run_1' }, 100)).toEqual({ sql: 'SELECT id, run_id, owner, type, data, at FROM events WHERE id > $1 AND run_id = $2 ORDER BY id LIMIT $3', values: [40, 'run_1', 100] });
    expect(eventsQuery('sqlite', { afterId: 0, owner: 'alice' }, 5)).toEqual({ sql: 'SELECT id, run_id, owner, type, data, at FROM events WHERE id > ? AND owner = ? ORDER BY id LIMIT ?', values: [0, 'alice', 5] });
  });

  it('pages runs newest first, one row more than the page', () => {
    expect(runsPageQuery('postgres', { owner: 'alice', status: 'running', before: 7 }, 50)).toEqual({ sql: 'SELECT * FROM runs WHERE owner = $1 AND status = $2 AND seq < $3 ORDER BY seq DESC LIMIT $4', values: ['alice', 'running', 7, 51] });
    expect(runsPageQuery('sqlite', {}, 10)).toEqual({ sql: 'SELECT * FROM runs  ORDER BY seq DESC LIMIT ?', values: [11] });
  });
});
