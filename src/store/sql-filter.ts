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
