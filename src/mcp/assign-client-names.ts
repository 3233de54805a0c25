/**
 * How upstream names become the names a client sees.
 * - `collisions` (default): a tool keeps its own name unless another server
 *   offers one of the same name; then every server offering it lists it as
 *   `<namespace>__<name>` (namespace: the server's `namespace`, else its name).
 * - `always`: every name is `<namespace>__<name>`, so names never change
 *   when a server is added or a server adds a tool.
 */
export type NamespacingMode = 'collisions' | 'always';

/** Between the namespace and the upstream name. */
export const NAMESPACE_SEPARATOR = '__';

export interface NamedItem<Item> {
  server: string;
  namespace: string;
  name: string;
  item: Item;
}

export interface AssignedName<Item> extends NamedItem<Item> {
  clientName: string;
}

/**
 * Assigns client names to every item (tools or prompts) of every server, in
 * the servers' policy order. An item whose own name begins with another
 * server's namespace and the separator (`files__write_file` offered by
 * `evil`) is always namespaced (`evil__files__write_file`): the name it
 * has reads as the other server's tool. Should two items still end with one client name
 * (a server whose own tool is called `files__read`, or two servers sharing a
 * namespace), the first keeps it and the later ones are dropped and reported:
 * a call must never be routed to a server the client did not mean. Names
 * `refuse` speaks against are dropped and reported too.
 *
 * @example
 * assignClientNames({ items, mode: 'collisions' }).assigned.map((entry) => entry.clientName)
 * // ['read_file', 'files__write_file', 'backup__write_file']
 */
export function assignClientNames<Item>(options: {
  items: readonly NamedItem<Item>[];
  mode: NamespacingMode;
  /** Why an upstream name is not listed at all (a name that may pass for another), or undefined. */
  refuse?: (name: string) => string | undefined;
  /** The namespaces of every configured server, listing or not (those of `items` count anyway). */
  namespaces?: Iterable<string>;
}): {
  assigned: AssignedName<Item>[];
  dropped: (AssignedName<Item> & { reason: string })[];
} {
  const owners = new Map<string, Set<string>>();
  for (const entry of options.items) {
    const servers = owners.get(entry.name) ?? new Set<string>();
    servers.add(entry.server);
    owners.set(entry.name, servers);
  }
  // `files__write_file` is the name of files' write_file: another server's tool called that must not take it (even while files is down).
  const namespaces = new Set([...(options.namespaces ?? []), ...options.items.map((entry) => entry.namespace)]);
  const passesForAnother = (entry: NamedItem<Item>) => {
    const separator = entry.name.indexOf(NAMESPACE_SEPARATOR);
    return separator > 0 && namespaces.has(entry.name.slice(0, separator)) && entry.name.slice(0, separator) !== entry.namespace;
  };
  const assigned: AssignedName<Item>[] = [];
  const dropped: (AssignedName<Item> & { reason: string })[] = [];
  const taken = new Map<string, AssignedName<Item>>();
  for (const entry of options.items) {
    const refused = options.refuse?.(entry.name);
    if (refused !== undefined) {
      dropped.push({ ...entry, clientName: entry.name, reason: refused });
      continue;
    }
    const prefixed = options.mode === 'always' || (owners.get(entry.name)?.size ?? 0) > 1 || passesForAnother(entry);
    const clientName = prefixed ? `${entry.namespace}${NAMESPACE_SEPARATOR}${entry.name}` : entry.name;
    const named = { ...entry, clientName };
    const holder = taken.get(clientName);
    if (holder !== undefined) {
      const reason =
        holder.server === entry.server
          ? `server ${JSON.stringify(entry.server)} lists ${JSON.stringify(entry.name)} twice`
          : `${JSON.stringify(clientName)} is already ${JSON.stringify(holder.name)} of server ${JSON.stringify(holder.server)}; give one of the servers another \`namespace\``;
      dropped.push({ ...named, reason });
      continue;
    }
    taken.set(clientName, named);
    assigned.push(named);
  }
  return { assigned, dropped };
}
