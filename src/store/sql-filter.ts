/**
 * A WHERE clause built a condition at a time, each `?` in a condition
 * becoming the dialect's next placeholder (`$n` for PostgreSQL, `?` for
 * SQLite) with its value kept in `values`, in the order they appear.
 *
 * @example
 * const filter = sqlFilter('postgres');
 * filter.add('owner = ?', 'alice');
 * filter.add('decision IS NULL');
 * `SELECT * FROM approvals ${filter.where()} LIMIT ${filter.value(10)}` // ... WHERE owner = $1 AND decision IS NULL LIMIT $2, values ['alice', 10]
 */
export function sqlFilter(dialect: 'postgres' | 'sqlite') {
  const values: unknown[] = [];
  const conditions: string[] = [];
  const value = (given: unknown): string => {
    values.push(given);
    return dialect === 'postgres' ? `$${values.length}` : '?';
  };
  return {
    values,
    value,
    add(condition: string, given?: unknown): void {
      conditions.push(condition.includes('?') ? condition.replace('?', value(given)) : condition);
    },
    where: (): string => (conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`),
  };
}

/**
 * The query of `readEvents`, the same in both stores: events after an id,
 * of one run or one owner, oldest first.
 *
 * @example
 * eventsQuery('sqlite', { afterId: 40, runId: 'run_1' }, 100).sql // 'SELECT id, ... WHERE id > ? AND run_id = ? ORDER BY id LIMIT ?'
 */
export function eventsQuery(dialect: 'postgres' | 'sqlite', request: { afterId: number; runId?: string; owner?: string }, limit: number): { sql: string; values: unknown[] } {
  const filter = sqlFilter(dialect);
  filter.add('id > ?', request.afterId);
  if (request.runId !== undefined) filter.add('run_id = ?', request.runId);
  if (request.owner !== undefined) filter.add('owner = ?', request.owner);
  return { sql: `SELECT id, run_id, owner, type, data, at FROM events ${filter.where()} ORDER BY id LIMIT ${filter.value(limit)}`, values: filter.values };
}

/**
 * The query of one page of `listRuns`, the same in both stores: newest
 * first, before a cursor's position, one row more than the page (for
 * `pageOf`). `before` is the decoded cursor.
 *
 * @example
 * runsPageQuery('postgres', { owner: 'alice' }, 50).sql // 'SELECT * FROM runs WHERE owner = $1 ORDER BY seq DESC LIMIT $2'
 */
export function runsPageQuery(dialect: 'postgres' | 'sqlite', request: { owner?: string; status?: string; before?: number }, limit: number): { sql: string; values: unknown[] } {
  const filter = sqlFilter(dialect);
  if (request.owner !== undefined) filter.add('owner = ?', request.owner);
  if (request.status !== undefined) filter.add('status = ?', request.status);
  if (request.before !== undefined) filter.add('seq < ?', request.before);
  return { sql: `SELECT * FROM runs ${filter.where()} ORDER BY seq DESC LIMIT ${filter.value(limit + 1)}`, values: filter.values };
}
