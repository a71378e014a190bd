/**
 * What writing a new voxform.yaml over a project's would lose, for `voxform init` and `voxform
 * export` alike: each writes only its own agents, so the refusal without --force names every other
 * agent, phone, section and comment of the one there, and --force says it again as a warning.
 */
import { pathExists } from '../project-files/guarded-read.js';
import { describeLosses, losesAnything, manifestLosses, type ManifestLosses } from '../export/manifest-losses.js';
import { isExportComment } from '../export/build-manifest.js';
import { isInitComment, MANIFEST_FILE, readExistingFile, type ExistingFiles, type OverwriteLosses } from './scaffold.js';

type ReplacingCommand = 'voxform init' | 'voxform export';

/** What the new manifest would drop of the one it replaces, and how the refusal and the warning say it. */
interface ReplacedManifest {
  losses: ManifestLosses;
  /** The refusal's words, for writeScaffold. */
  refusal: OverwriteLosses;
  /** The warning once --force replaced it. */
  warning: string;
}

/**
 * What `next` drops of the manifest at `file` it would replace (read as `existing` says); undefined
 * when there is none, it loses nothing, or it may not be read (a link out of the project, in a CI job
 * a file the commit does not hold: it is replaced, never read, for its names would be printed).
 */
export async function replacedManifest(file: string, existing: ExistingFiles, next: string, command: ReplacingCommand): Promise<ReplacedManifest | undefined> {
  if (!(await pathExists(file, { follow: false }))) return undefined;
  const read = await readExistingFile(file, existing);
  if (!read.ok) return undefined;
  const losses = manifestLosses(read.bytes.toString('utf8'), next, isOwnComment);
  if (!losesAnything(losses)) return undefined;
  const said = describeLosses(losses);
  const addAnAgent = howToAddAnAgent(command);
  return {
    losses,
    refusal: {
      said: `The new ${MANIFEST_FILE} would drop what the one there defines: ${said}.`,
      hint: `T${addAnAgent.slice(1)}. Pass --force to replace it all the same, losing what is listed.`,
    },
    warning: `warning: the ${MANIFEST_FILE} this ${command.replace('voxform ', '')} replaced defined what the new one drops: ${said}. Restore it (from git) unless that was meant; ${addAnAgent}.\n`,
  };
}

/** How a project keeps what replacing its manifest would drop: said with the refusal, and after a --force. */
function howToAddAnAgent(command: ReplacingCommand): string {
  return command === 'voxform init'
    ? `to add an agent to a project, init it beside it (voxform init --template NAME DIR) and move the agent's entry and prompt file into ${MANIFEST_FILE} (docs/templates.md)`
    : `to add an agent to a project, export it beside it (--out DIR) and move the agent's entry and prompt file into ${MANIFEST_FILE} (docs/export.md)`;
}

/**
 * Whether a comment (its text after `#`, trimmed) is a line export or init writes itself: either may
 * replace a manifest the other wrote, so each leaves out both.
 */
export function isOwnComment(text: string): boolean {
  return isExportComment(text) || isInitComment(text);
}
