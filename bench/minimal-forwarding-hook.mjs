// The least a hook that is a Node process and forwards to toolgate serve can
// do: read the host's JSON on stdin, POST it with node:http, print the answer.
// No argument parsing, no deadline, no checks: the floor toolgate's own
// forwarding hook is measured against (bench/suites/hook-bench.ts).
const { request } = process.getBuiltinModule('node:http');
let input = '';
for await (const chunk of process.stdin) input += chunk;
const sent = request(new URL('/hooks/claude-code?shell=%2Fbin%2Fbash', process.argv[2]), { method: 'POST', headers: { authorization: `Bearer ${process.env.TOOLGATE_TOKEN}`, 'content-type': 'application/json' } }, (response) => {
  let text = '';
  response.setEncoding('utf8').on('data', (chunk) => (text += chunk));
  response.on('end', () => {
    process.stdout.write(text);
    process.exit(0);
  });
});
sent.end(input);
