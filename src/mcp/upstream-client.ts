/**
 * The MCP client of one connection attempt to an upstream server: it offers
 * roots, sampling and elicitation (the gateway's clients' to give, relayed
 * under the policy), and passes on what the server announces (list changes,
 * resource updates, log messages) only while it is the connection in use.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
  type Implementation,
} from '@modelcontextprotocol/sdk/types.js';
import type { UpstreamEvents } from './upstream-connection.ts';

/**
 * A client for one attempt; `current` says whether it is still the one in
 * use (announcements of an older attempt are dropped).
 *
 * @example
 * const client = upstreamClient({ name, clientInfo, events, current: () => client === attempt, onToolsChanged, onPromptsChanged, onResourcesChanged });
 */
export function upstreamClient(options: {
  name: string;
  clientInfo: Implementation;
  events: UpstreamEvents;
  current: (client: Client) => boolean;
  onToolsChanged: (client: Client) => void;
  onPromptsChanged: (client: Client) => void;
  onResourcesChanged: (client: Client) => void;
}): Client {
  const { name, events } = options;
  // Roots, sampling and elicitation are the clients' to give: the gateway relays them, under the policy.
  const client = new Client(options.clientInfo, { capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: { form: {} } } });
  client.setRequestHandler(ListRootsRequestSchema, () => events.listRoots(name));
  client.setRequestHandler(CreateMessageRequestSchema, (request, extra) => events.createMessage(name, request.params, extra.signal));
  client.setRequestHandler(ElicitRequestSchema, (request, extra) => events.elicit(name, request.params, extra.signal));
  const current = () => options.current(client);
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    if (current()) options.onToolsChanged(client);
  });
  client.setNotificationHandler(PromptListChangedNotificationSchema, () => {
    if (current()) options.onPromptsChanged(client);
  });
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
    if (current()) options.onResourcesChanged(client);
  });
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
    if (current()) events.resourceUpdated(name, notification.params.uri);
  });
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    if (current()) events.logMessage(name, notification.params);
  });
  return client;
}
