/**
 * Reading an upstream server's lists (tools, prompts, resources and their
 * templates) through every page, each request under the connect deadline,
 * at most MAX_PAGES pages: a server cannot keep the gateway listing forever.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Prompt, Resource, ResourceTemplate, Tool } from '@modelcontextprotocol/sdk/types.js';

const MAX_PAGES = 100;

/**
 * Every tool the server lists.
 *
 * @example
 * const tools = await readToolList(client, 30_000);
 */
export function readToolList(from: Client, timeoutMs: number): Promise<Tool[]> {
  return readAllPages(async (cursor) => {
    const page = await from.listTools(cursor === undefined ? {} : { cursor }, { timeout: timeoutMs });
    return { items: page.tools, nextCursor: page.nextCursor };
  });
}

/**
 * Every prompt the server lists, or undefined when it has no prompts capability (the last list stands).
 *
 * @example
 * const prompts = await readPromptList(client, 30_000);
 */
export async function readPromptList(from: Client, timeoutMs: number): Promise<Prompt[] | undefined> {
  if (from.getServerCapabilities()?.prompts === undefined) return undefined;
  return readAllPages(async (cursor) => {
    const page = await from.listPrompts(cursor === undefined ? {} : { cursor }, { timeout: timeoutMs });
    return { items: page.prompts, nextCursor: page.nextCursor };
  });
}

/**
 * Every resource and resource template the server lists, or undefined when it has no resources capability.
 *
 * @example
 * const lists = await readResourceLists(client, 30_000);
 */
export async function readResourceLists(from: Client, timeoutMs: number): Promise<{ resources: Resource[]; templates: ResourceTemplate[] } | undefined> {
  if (from.getServerCapabilities()?.resources === undefined) return undefined;
  const resources = await readAllPages(async (cursor) => {
    const page = await from.listResources(cursor === undefined ? {} : { cursor }, { timeout: timeoutMs });
    return { items: page.resources, nextCursor: page.nextCursor };
  });
  const templates = await readAllPages(async (cursor) => {
    const page = await from.listResourceTemplates(cursor === undefined ? {} : { cursor }, { timeout: timeoutMs });
    return { items: page.resourceTemplates, nextCursor: page.nextCursor };
  });
  return { resources, templates };
}

/** Every item of a paginated list. */
async function readAllPages<Item>(read: (cursor: string | undefined) => Promise<{ items: Item[]; nextCursor?: string | undefined }>): Promise<Item[]> {
  const items: Item[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await read(cursor);
    items.push(...result.items);
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  return items;
}
