/**
 * `toolgate/mcp`: the MCP gateway — one MCP server in front of the servers a
 * policy names, with every tool call going through toolgate's gate.
 */
export { createMcpGateway } from './create-mcp-gateway.ts';
export type { McpGateway, McpGatewayConnection } from './create-mcp-gateway.ts';
export { DEFAULT_CALL_TIMEOUT_MS } from './mcp-gateway-options.ts';
export type { McpGatewayOptions } from './mcp-gateway-options.ts';
export { GatewayStdioTransport } from './gateway-stdio-transport.ts';
export { startHttpGateway, generateGatewayToken, MCP_HTTP_PATH, MIN_TOKEN_LENGTH } from './http-gateway.ts';
export type { HttpGateway, HttpGatewayOptions } from './http-gateway.ts';
export { NAMESPACE_SEPARATOR } from './assign-client-names.ts';
export type { NamespacingMode } from './assign-client-names.ts';
export { readUpstreamServers } from './upstream-server-config.ts';
export type { UpstreamServerConfig, UpstreamTransportConfig } from './upstream-server-config.ts';
export { evaluateServerRule } from './mcp-tool-declaration.ts';
export type { McpToolEntry, ServerRuleOutcome } from './mcp-tool-declaration.ts';
export { toolDefinitionHash, toolIdentity } from './tool-definition.ts';
export { definitionChangedRecord, recordDefinitionChanges, DEFINITION_CHANGED_SCHEMA_VERSION } from './definition-change.ts';
export type { DefinitionChange } from './definition-change.ts';
export { approvalElicitationSchema, createElicitationApprover, decisionFromElicitation } from './elicitation-approver.ts';
export type { ApprovalElicitationSchema, ElicitationApproverOptions } from './elicitation-approver.ts';
export { UpstreamError } from './upstream-error.ts';
export type { UpstreamErrorCode } from './upstream-error.ts';
export type { RestartPolicy } from './upstream-connection.ts';
export type { GatewayStatsSnapshot, LatencySummary } from './gateway-stats.ts';
