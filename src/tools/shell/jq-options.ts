/**
 * What toolgate knows of jq's (and gojq's) command line: its options by
 * what follows them. Its own module, read by both the path checks
 * (path-arguments.ts: which words are files) and the program checks
 * (option-hazards.ts: which word is the program), so neither imports the
 * other.
 */
/** jq's options by what follows them: the one grammar the path and program checks read. */
export const JQ_OPTIONS = {
  /** Two words follow (`--arg name value`); the second is a file for `--slurpfile` and `--rawfile`. */
  twoWords: new Set(['--arg', '--argjson', '--slurpfile', '--rawfile']),
  /** The program comes from the file that follows. */
  programFile: new Set(['-f', '--from-file']),
  /** One word follows (`-L` a directory modules are loaded from). */
  oneWord: new Set(['--indent', '-L', '--library-path']),
  flags: /^(-[nrjascCMSeh0V]+|--(seq|stream|stream-errors|raw-input|slurp|compact-output|null-input|raw-output|raw-output0|join-output|ascii-output|sort-keys|color-output|monochrome-output|tab|exit-status|unbuffered|args|jsonargs|help|version|yaml-input|yaml-output))$/,
};
