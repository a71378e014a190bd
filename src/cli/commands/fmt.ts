import { CheckoutFiles } from '../../project-files/checkout-files.js';
import path from 'node:path';
import { formatFiles } from '../../format/format-files.js';
import { findManifestFiles } from '../../project-files/manifest-files.js';
import type { CommandContext } from '../context.js';
import { errorText } from '../error-text.js';
import { formatDiagnostics } from '../diagnostics.js';
import type { Diagnostic } from '../../manifest/types.js';
import { plural, pluralNoun } from '../../util/plural.js';

interface FmtOptions {
  /** `[paths...]`: files or folders. */
  args?: string[];
  check?: boolean;
}

/** `voxform fmt`: rewrites manifests in the canonical layout (`--check`: writes nothing), listing the files. */
export async function run(options: FmtOptions, ctx: CommandContext): Promise<number> {
  const paths = options.args ?? [];
  const check = options.check === true;
  const display = (file: string) => path.relative(ctx.cwd, file) || file;
  // The loader's finder: the same files, defaults and project roots as validate, plan and apply.
  const files = await findManifestFiles(paths, ctx.cwd, { namedWith: '`voxform fmt PATH`' });
  // Each path is printed as its file is replaced: a run stopped midway has listed every file it changed.
  const results = await formatFiles(files, {
    write: !check,
    checkout: CheckoutFiles.forRun(ctx.env),
    displayName: display,
    onFile: (result) => {
      if (result.status === 'changed') ctx.stdout.write(`${display(result.file)}\n`);
    },
  });

  for (const { error } of results) {
    if (!error) continue;
    // A file whose YAML the loader cannot read: its problems as validate lists them, then the error.
    const problems = (error.details as { diagnostics?: Diagnostic[] } | undefined)?.diagnostics;
    if (problems) ctx.stderr.write(formatDiagnostics(problems, { color: ctx.color }));
    ctx.stderr.write(errorText(error));
  }

  const changed = results.filter((r) => r.status === 'changed').length;
  const failed = results.filter((r) => r.status === 'error').length;
  if (check && changed > 0) {
    ctx.stderr.write(`${plural(changed, 'file')} not in the canonical layout; run \`voxform fmt\` to fix ${pluralNoun(changed, 'it', 'them')}.\n`);
  } else if (results.length === 0) {
    ctx.stderr.write('No manifests found to format.\n');
  } else if (failed === 0 && changed === 0) {
    ctx.stderr.write(`${plural(results.length, 'file')} already formatted.\n`);
  }
  return failed > 0 || (check && changed > 0) ? 1 : 0;
}
