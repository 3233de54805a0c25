import { CallToolResultSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { JsonSchemaType, JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { errorMessage } from '../core/run-tool-check.ts';
import { UpstreamError } from './upstream-error.ts';

/**
 * Checks what an upstream server returns from tools/call before it is
 * forwarded: a well-formed `CallToolResult` and, for a tool with an output
 * schema, structured content that matches it. A result the client could not
 * use is reported as the server's failure, with the server's name, rather
 * than as a puzzling error in the client. Output schemas are compiled when
 * first seen (tool lists are re-read often).
 *
 * @example
 * const results = createToolResultCheck({ server: 'files' });
 * results.update(tools);
 * results.check({ tool: 'read_text_file', result, what: 'the call to read_text_file' }); // throws UpstreamError
 */
export function createToolResultCheck(options: { server: string }) {
  const { server } = options;
  const compiler = new AjvJsonSchemaValidator();
  const validators = new Map<string, { schema: string; validate: JsonSchemaValidator<unknown> }>();
  return {
    /** Takes a new tool list's output schemas. */
    update(tools: readonly Tool[]): void {
      const listed = new Set<string>();
      for (const tool of tools) {
        if (tool.outputSchema === undefined) continue;
        listed.add(tool.name);
        const schema = JSON.stringify(tool.outputSchema);
        if (validators.get(tool.name)?.schema === schema) continue;
        try {
          validators.set(tool.name, { schema, validate: compiler.getValidator(tool.outputSchema as JsonSchemaType) });
        } catch (error) {
          const reason = `its output schema cannot be compiled (${errorMessage(error)})`;
          validators.set(tool.name, { schema, validate: () => ({ valid: false, data: undefined, errorMessage: reason }) });
        }
      }
      for (const name of validators.keys()) if (!listed.has(name)) validators.delete(name);
    },
    check(call: { tool: string; result: Record<string, unknown>; what: string }): void {
      const malformed = (why: string) =>
        new UpstreamError({ code: 'MCP_UPSTREAM_FAILED', server, message: `MCP server ${JSON.stringify(server)} sent a malformed response to ${call.what}: ${why}` });
      let result: { isError?: boolean | undefined; structuredContent?: unknown } = call.result;
      if (!isPlainTextResult(call.result)) {
        const parsed = CallToolResultSchema.safeParse(call.result);
        if (!parsed.success) throw malformed(parsed.error.issues.map((issue) => `${issue.path.join('.') || 'result'}: ${issue.message}`).join('; '));
        result = parsed.data;
      }
      const validator = validators.get(call.tool);
      if (validator === undefined || result.isError === true) return;
      if (result.structuredContent === undefined) throw malformed('the tool has an output schema but the result has no structuredContent');
      const verdict = validator.validate(result.structuredContent);
      if (!verdict.valid) throw malformed(`structuredContent does not match the tool's output schema (${verdict.errorMessage})`);
    },
  };
}

const PLAIN_RESULT_KEYS = new Set(['content', 'isError', 'structuredContent']);

/**
 * The shape most results have, checked by hand: text blocks (`type` and
 * `text` only), an optional boolean `isError` and an optional object
 * `structuredContent`, nothing else. Everything it accepts,
 * `CallToolResultSchema` accepts too; anything else (images, resources,
 * annotations, `_meta`) goes to the schema. The schema costs a forwarded
 * call more than the rest of the gateway's own work.
 */
function isPlainTextResult(result: Record<string, unknown>): boolean {
  for (const key in result) if (!PLAIN_RESULT_KEYS.has(key)) return false;
  const { content, isError, structuredContent } = result;
  if (!Array.isArray(content)) return false;
  if (isError !== undefined && typeof isError !== 'boolean') return false;
  if (structuredContent !== undefined && (typeof structuredContent !== 'object' || structuredContent === null || Array.isArray(structuredContent))) return false;
  for (const block of content) {
    if (typeof block !== 'object' || block === null || Array.isArray(block)) return false;
    const record = block as Record<string, unknown>;
    if (record.type !== 'text' || typeof record.text !== 'string') return false;
    for (const key in record) if (key !== 'type' && key !== 'text') return false;
  }
  return true;
}
