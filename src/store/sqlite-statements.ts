import type Database from 'better-sqlite3';

/**
 * Each distinct SQL text prepared once, on first use, on one connection.
 *
 * @example
 * const statement = preparedStatements(database);
 * const row = statement('SELECT * FROM runs WHERE run_id = ?').get(runId);
 */
export function preparedStatements(database: Database.Database): (sql: string) => Database.Statement {
  const prepared = new Map<string, Database.Statement>();
  return (sql) => {
    let found = prepared.get(sql);
    if (found === undefined) {
      found = database.prepare(sql);
      prepared.set(sql, found);
    }
    return found;
  };
}
