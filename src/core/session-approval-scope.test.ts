import { describe, expect, it } from 'vitest';
import { sessionApprovalScope } from './session-approval-scope.ts';

describe('sessionApprovalScope', () => {
  it('a file write: the same zone and path, whatever the content', () => {
    const scope = sessionApprovalScope({
      request: { tool: 'write_file', payload: { zone: 'workspace', path: 'notes.txt' } },
      call: { args: { path: 'ws/notes.txt', content: 'hello' } },
    });
    expect(scope.text).toBe('later write_file calls in this session with the same zone "workspace" and path "notes.txt", whatever their content');
    expect(scope).toMatchObject({ fixed: ['zone', 'path'], free: ['content'], anyArguments: false });
  });

  it('a payload that is the arguments: exactly these arguments', () => {
    const args = { to: 'a@example.com', body: 'hi' };
    expect(sessionApprovalScope({ request: { tool: 'send_email', payload: { body: 'hi', to: 'a@example.com' } }, call: { args } }).text).toBe(
      'later send_email calls in this session with exactly these arguments',
    );
  });

  it('a shell command: the same command and directory', () => {
    const text = sessionApprovalScope({ request: { tool: 'shell', payload: { command: 'npm test', cwd: '/work/ws' } }, call: { args: { command: 'npm test' } } }).text;
    expect(text).toBe('later shell calls in this session with the same command "npm test" and cwd "/work/ws"');
  });

  it('an empty or missing payload covers every later call, and says so', () => {
    for (const payload of [{}, null, undefined]) {
      const scope = sessionApprovalScope({ request: { tool: 'deploy', payload }, call: { args: { target: 'prod' } } });
      expect(scope.anyArguments).toBe(true);
      expect(scope.text).toBe('every later deploy call in this session, whatever its arguments');
    }
  });

  it('cuts long values and many fields', () => {
    const payload = Object.fromEntries(Array.from({ length: 9 }, (_, index) => [`f${index}`, 'x'.repeat(100)]));
    const text = sessionApprovalScope({ request: { tool: 't', payload }, call: { args: {} } }).text;
    expect(text).toContain('3 more fields');
    expect(text.length).toBeLessThan(600);
  });

  it('a scalar payload different from the arguments is named', () => {
    expect(sessionApprovalScope({ request: { tool: 't', payload: 'repo:main' }, call: { args: { branch: 'main' } } }).text).toBe(
      'later t calls in this session with the same approval payload ("repo:main")',
    );
  });
});
