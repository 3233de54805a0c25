/**
 * A block rule is not sidestepped by a longer form of the command it
 * blocks: with `docker run` blocked, `docker compose run`, `docker
 * create` + `docker start` and `docker container create` may run a
 * container, and with `kubectl delete` blocked, `kubectl replace --force`
 * and `kubectl apply --prune` may delete. Each may match the blocked
 * command, so it asks (like `terraform apply -destroy`), while the same
 * broad allow still covers what surely does neither.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizePolicy } from '../src/core/policy/normalize-policy.ts';
import { zonesFromPolicy } from '../src/tools/fs/zones.ts';
import { createShellTool, type ShellTool } from '../src/tools/shell/create-shell-tool.ts';

let root: string;
let tool: ShellTool;

beforeAll(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-long-forms-')));
  mkdirSync(path.join(root, 'ws'));
  const policy = normalizePolicy({
    fs: { zones: [{ name: 'ws', root: 'ws', mode: 'rw', approval: { read: 'allow', write: 'allow', delete: 'allow' } }] },
    shell: {
      default: 'ask',
      network: true,
      rules: [
        { match: 'docker', decision: 'allow' },
        { match: 'docker run', decision: 'block' },
        { match: 'podman', decision: 'allow' },
        { match: 'podman run', decision: 'block' },
        { match: 'kubectl', decision: 'allow' },
        { match: 'kubectl delete', decision: 'block' },
      ],
    },
  });
  tool = createShellTool({ policy, zones: zonesFromPolicy({ policy, policyDirectory: root }), cwd: root });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function decide(command: string) {
  const verdict = await tool.decide({ command, cwd: 'ws' });
  return { decision: verdict.decision, reasons: verdict.reasons.join('\n') };
}

describe('longer forms of a blocked command ask', () => {
  it.each([
    ['docker compose run web', 'docker run'], ['docker compose up', 'docker run'], ['docker compose up -d', 'docker run'], ['docker compose create', 'docker run'], ['docker compose start', 'docker run'],
    ['docker create alpine', 'docker run'], ['docker start c1', 'docker run'], ['docker container create alpine', 'docker run'], ['docker container start c1', 'docker run'],
    ['docker create alpine && docker start c1', 'docker run'], ['docker -H unix:///x.sock create alpine', 'docker run'], ['podman create alpine', 'podman run'], ['podman compose run web', 'podman run'],
    ['kubectl replace --force -f pod.yaml', 'kubectl delete'], ['kubectl replace -f pod.yaml --force=true', 'kubectl delete'], ['kubectl apply --prune -l app=x -f dir/', 'kubectl delete'], ['kubectl -n prod apply --prune=true -f dir/', 'kubectl delete'],
  ])('%s asks: it may do what "%s" does', async (command, blocked) => {
    const verdict = await decide(command);
    expect(verdict.decision).toBe('ask');
    expect(verdict.reasons).toContain(`could turn out to be "${blocked}"`);
  });

  it.each(['docker run alpine', 'docker container run alpine', 'kubectl delete pod x', 'kubectl -n prod delete po x'])('%s blocks', async (command) => {
    expect((await decide(command)).decision).toBe('block');
  });

  it.each(['docker ps', 'docker compose ps', 'docker compose logs web', 'docker container ls', 'docker images', 'kubectl get pods', 'kubectl apply -f pod.yaml', 'kubectl replace -f pod.yaml'])('%s stays allowed', async (command) => {
    expect((await decide(command)).decision).toBe('allow');
  });
});
