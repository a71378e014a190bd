/**
 * What an exported manifest would drop of the one it replaces: an export writes only the agents it
 * read and their phones, so replacing a project's manifest with it loses every other resource, every
 * other section and the team's comments. Export (and init, which writes one agent) names them before
 * it overwrites anything (init/replaced-manifest.ts).
 */
import { isMap, isScalar, isSeq, Lexer, type YAMLMap } from 'yaml';
import { parseYamlDocuments } from '../yaml/documents.js';
import { printable } from '../util/printable.js';
import { plural, wordList } from '../util/plural.js';

/** What the existing manifest defines that the exported one does not. */
export interface ManifestLosses {
  /** Resources dropped, by section (`agents`: local names); an empty list for none. */
  resources: ReadonlyArray<{ section: string; names: string[] }>;
  /** Top-level sections other than resources (`environments`, `policy`) that the exported manifest lacks. */
  sections: string[];
  /** Comment lines of the existing manifest that the exported one does not hold. */
  comments: number;
  /** Whether the existing manifest does not read as a mapping of sections, so what it defines cannot be listed. */
  unreadable: boolean;
}

/** The sections whose entries are resources, as plan names them; `credentials` is a list, by provider. */
const RESOURCE_SECTIONS = ['agents', 'phones', 'campaigns', 'knowledge', 'credentials'] as const;
/** What every export writes or decides itself: not a loss when the new one words it otherwise. */
const EXPORT_SECTIONS = new Set(['version', 'region']);

/**
 * What `exported` drops of `existing` (both manifest text; `existing` is the project's, untrusted).
 * `ownComment`: whether a comment (its text after `#`, trimmed) is one voxform writes itself, which
 * is no loss when the new text words it otherwise.
 */
export function manifestLosses(existing: string, exported: string, ownComment: (text: string) => boolean): ManifestLosses {
  // Read as voxform reads every YAML file, within the token budget (src/yaml/documents.ts).
  const read = parseYamlDocuments(existing, { document: { uniqueKeys: false } });
  const comments = read.tooLargeAt === undefined ? commentsDropped(existing, exported, ownComment) : 0;
  const [old, ...more] = read.documents;
  const [next] = parseYamlDocuments(exported).documents;
  if (old === undefined || more.length > 0 || old.errors.length > 0 || !isMap(old.contents) || !isMap(next?.contents)) {
    // An empty file or one holding only comments defines nothing.
    const empty = read.tooLargeAt === undefined && more.length === 0 && (old === undefined || (old.errors.length === 0 && (old.contents === null || (isScalar(old.contents) && old.contents.value === null))));
    return { resources: [], sections: [], comments, unreadable: !empty };
  }
  const oldRoot = old.contents;
  const newRoot = next.contents;
  const resources = RESOURCE_SECTIONS.map((section) => ({ section, names: droppedEntries(section, oldRoot.get(section, true), newRoot.get(section, true)) }));
  const sections = keysOf(oldRoot).filter((key) => !(RESOURCE_SECTIONS as readonly string[]).includes(key) && !EXPORT_SECTIONS.has(key) && !newRoot.has(key));
  return { resources: resources.filter((entry) => entry.names.length > 0), sections, comments, unreadable: false };
}

/** Whether anything would be lost. */
export function losesAnything(losses: ManifestLosses): boolean {
  return losses.unreadable || losses.resources.length > 0 || losses.sections.length > 0 || losses.comments > 0;
}

/** Whether resources would be lost: the plan of the new manifest then lists those applied as not managed any more. */
export function losesResources(losses: ManifestLosses): boolean {
  return losses.unreadable || losses.resources.length > 0;
}

/** `agents front-desk and booking; phone +15551230001; the environments and policy sections; 3 comment lines`. */
export function describeLosses(losses: ManifestLosses): string {
  if (losses.unreadable) return 'all it defines (it does not read as a manifest, so what it defines cannot be listed)';
  const parts = losses.resources.map(({ section, names }) => `${sectionNoun(section, names.length)} ${wordList(names.map(printable), 'and')}`);
  if (losses.sections.length > 0) parts.push(`the ${wordList(losses.sections.map(printable), 'and')} ${losses.sections.length === 1 ? 'section' : 'sections'}`);
  if (losses.comments > 0) parts.push(plural(losses.comments, 'comment line'));
  return parts.join('; ');
}

function sectionNoun(section: string, count: number): string {
  if (section === 'knowledge') return count === 1 ? 'knowledge file' : 'knowledge files';
  if (section === 'credentials') return count === 1 ? 'credential for' : 'credentials for';
  return count === 1 ? section.replace(/s$/, '') : section;
}

/** The entries of a resource section in `old` that `next` lacks: by key; credentials by provider; an agent also by its id. */
function droppedEntries(section: string, old: unknown, next: unknown): string[] {
  if (section === 'credentials') {
    const providers = (list: unknown) => (isSeq(list) ? list.items.map((item) => (isMap(item) ? scalarText(item.get('provider', true)) : undefined)) : []);
    const kept = new Set(providers(next));
    return providers(old).filter((provider): provider is string => provider !== undefined && !kept.has(provider));
  }
  if (!isMap(old)) return [];
  const keptKeys = new Set(isMap(next) ? keysOf(next) : []);
  const keptIds = new Set(isMap(next) ? next.items.map((pair) => idOf(pair.value)) : []);
  return old.items
    .filter((pair) => {
      const key = scalarText(pair.key);
      const id = idOf(pair.value);
      return key !== undefined && !keptKeys.has(key) && (id === undefined || !keptIds.has(id));
    })
    .map((pair) => scalarText(pair.key) as string);
}

function keysOf(map: YAMLMap): string[] {
  return map.items.map((pair) => scalarText(pair.key)).filter((key): key is string => key !== undefined);
}

function idOf(entry: unknown): string | undefined {
  return isMap(entry) ? scalarText(entry.get('id', true)) : undefined;
}

function scalarText(node: unknown): string | undefined {
  return isScalar(node) && node.value !== null && typeof node.value !== 'object' ? String(node.value) : undefined;
}

/**
 * The comment lines of `existing` the exported text does not hold as well, leaving out those voxform
 * writes itself (`ownComment`): a header or a note it wrote, worded otherwise now, is no loss.
 */
function commentsDropped(existing: string, exported: string, ownComment: (text: string) => boolean): number {
  const kept = new Map<string, number>();
  for (const comment of commentsOf(exported)) kept.set(comment, (kept.get(comment) ?? 0) + 1);
  let dropped = 0;
  for (const comment of commentsOf(existing)) {
    if (ownComment(comment.replace(/^#/, '').trim())) continue;
    const left = kept.get(comment) ?? 0;
    if (left > 0) kept.set(comment, left - 1);
    else dropped++;
  }
  return dropped;
}

/** The comments of YAML text, each trimmed: read by the YAML lexer, so a `#` inside a value or a block scalar is none. */
function commentsOf(text: string): string[] {
  return [...new Lexer().lex(text)].filter((token) => token.startsWith('#')).map((token) => token.trim());
}
