/** The read tool driven by the Vercel AI SDK's own loop, with a scripted model. */
import { generateText, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createFsFixture, type FsFixture } from '../../../test/fs-fixture.ts';
import { createReadFileTool, readFileSchema } from './read-file-tool.ts';

let fixture: FsFixture;
beforeEach(() => {
  fixture = createFsFixture();
});
afterEach(() => fixture.cleanup());

it('runs as a Vercel AI SDK tool inside generateText', async () => {
  let step = 0;
  const model = new MockLanguageModelV3({
    doGenerate: async () => {
      step++;
      if (step === 1) {
        return {
          content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'read_file', input: JSON.stringify({ path: 'ws/notes.txt' }) }],
          finishReason: { unified: 'tool-calls', raw: undefined },
          usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
          warnings: [],
        };
      }
      return {
        content: [{ type: 'text', text: 'done' }],
        finishReason: { unified: 'stop', raw: undefined },
        usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
        warnings: [],
      };
    },
  });
  const readFile = createReadFileTool({ zones: fixture.zones, cwd: fixture.project, maxReadBytes: 1024, protectedPaths: [] });
  // The parts the AI SDK needs, as they are: description, the zod schema, execute.
  const aiTool = tool({ description: readFile.description, inputSchema: readFileSchema, execute: (input) => readFile.execute(input) });
  const result = await generateText({ model, prompt: 'read', tools: { read_file: aiTool }, stopWhen: stepCountIs(3) });
  const output = result.steps[0]!.toolResults[0]!.output;
  expect(output).toMatchObject({ path: 'ws/notes.txt', content: 'line one\nline two\nline three\n' });
});
