/**
 * An error's message as output may show it, with one rule: what a JSON or YAML parser said is never
 * passed on as it is. JSON.parse's message quotes the text around the fault (`Unexpected token 's',
 * "sk-live-ab"... is not valid JSON`), as some of the YAML parser's do ("Unresolved tag: !…"), and the
 * text may hold anyone's secret. The scrub of the run's secrets would not catch it: the quote is cut
 * to a few characters, shorter than any registered value, and the text (a file a policy pack reads,
 * an answer) may hold a secret voxform never registered. Where voxform has the text, it says where
 * the text stops being JSON or YAML and what was wrong there (src/project-files/document-text.ts);
 * for an error caught from code that parsed it, it says only which parser refused.
 */
import { yamlErrorSentence } from '../yaml/error-sentence.js';

/** What JSON.parse throws (and Node's loader of a JSON module): a SyntaxError whose message names JSON. */
export function isJsonParseError(error: unknown): error is SyntaxError {
  return error instanceof Error && error.name === 'SyntaxError' && /\bJSON\b/.test(error.message);
}

/** What the YAML parser throws: YAMLParseError or YAMLWarning, with the parser's code (checked without loading it). */
function isYamlError(error: unknown): error is Error & { code: string } {
  return error instanceof Error && /^YAML(?:ParseError|Warning)$/.test(error.name) && typeof (error as { code?: unknown }).code === 'string';
}

export const JSON_PARSE_REFUSED = "JSON.parse refused text that is not JSON (its message is not shown: it quotes the text)";

/** `error`'s message (a thrown value that is no Error as text), a parser's in voxform's words. */
export function errorMessage(error: unknown): string {
  try {
    if (isJsonParseError(error)) return JSON_PARSE_REFUSED;
    if (isYamlError(error)) return `the YAML parser refused text: ${yamlErrorSentence(error.message)}`;
    return error instanceof Error ? error.message : String(error);
  } catch {
    return 'a value that cannot be shown';
  }
}

/** `error`'s stack as a debug log shows it, its first line `errorMessage`'s (a stack begins with the message). */
export function errorStack(error: unknown): string {
  if (!(error instanceof Error) || typeof error.stack !== 'string') return errorMessage(error);
  const frames = error.stack.indexOf('\n    at ');
  return `${error.name}: ${errorMessage(error)}${frames === -1 ? '' : error.stack.slice(frames)}`;
}
