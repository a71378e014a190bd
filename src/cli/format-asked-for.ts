/**
 * The `--format` a command line asks for (the last one given), for an error found before the
 * command runs (the argument parser's, or voxform's modules failing to load): `voxform plan --format
 * json --bogus` answers in JSON too.
 */
export function formatAskedFor(argv: readonly string[]): string | undefined {
  let format: string | undefined;
  for (let i = 0; i < argv.length && argv[i] !== '--'; i++) {
    const arg = argv[i] as string;
    // `ci run --command-args "…"` hands its value to another command line: its --format is that one's.
    if (arg === '--command-args') i++;
    else if (arg === '--format') format = argv[i + 1];
    else if (arg.startsWith('--format=')) format = arg.slice('--format='.length);
  }
  return format;
}
