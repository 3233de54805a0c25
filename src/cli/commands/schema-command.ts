import { policyJsonSchema } from '../../core/policy/policy-schema.ts';
import { EXIT, type CliIo } from '../cli-io.ts';
import { parseCommandLine } from '../parse-command-line.ts';

export const SCHEMA_HELP = `Usage: toolgate schema

Prints the JSON Schema of the policy file. Point your editor at it for
completion and checking, e.g. with the YAML language server:
  # yaml-language-server: $schema=./toolgate.schema.json

Options:
  -h, --help   this help
`;

/** `toolgate schema`: the policy file's JSON Schema on stdout. */
export async function runSchemaCommand(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseCommandLine({ argv, options: { help: { type: 'boolean', short: 'h' } } });
  if (values.help) {
    io.stdout.write(SCHEMA_HELP);
    return EXIT.ok;
  }
  io.stdout.write(`${JSON.stringify(policyJsonSchema(), null, 2)}\n`);
  return EXIT.ok;
}
