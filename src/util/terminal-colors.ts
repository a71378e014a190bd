/**
 * voxform's colours on a terminal: the usual SGR sequences, each marked as voxform's own
 * (`ownSequence`), so the terminal rule keeps them and escapes any sequence in the text they wrap.
 */
import { ownSequence } from './printable.js';

export interface Colors {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  magenta(text: string): string;
}

/** SGR sequences, each marked as voxform's own. */
function sgr(...codes: number[]): string {
  return codes.map((code) => ownSequence(`\x1b[${code}m`)).join('');
}

/** A style: a close inside the text (a nested style's) is replaced by `reopen`, so the style goes on after it. */
function style(open: number, close: number, reopen = sgr(open)): (text: string) => string {
  const opening = sgr(open);
  const closing = sgr(close);
  return (text) => `${opening}${text.replaceAll(closing, reopen)}${closing}`;
}

const COLORS: Colors = {
  bold: style(1, 22, sgr(22, 1)),
  dim: style(2, 22, sgr(22, 2)),
  red: style(31, 39),
  green: style(32, 39),
  yellow: style(33, 39),
  cyan: style(36, 39),
  magenta: style(35, 39),
};

const PLAIN: Colors = { bold: String, dim: String, red: String, green: String, yellow: String, cyan: String, magenta: String };

/**
 * Whether the terminal draws escape sequences: `TERM=dumb` says it does not (an editor's shell buffer,
 * a job log standing in for a terminal), so it gets neither colour nor a line redrawn in place.
 */
export function drawsEscapeSequences(env: Readonly<Record<string, string | undefined>>): boolean {
  return env.TERM !== 'dumb';
}

/**
 * What `FORCE_COLOR` asks for, by the common convention: `0` or `false` no colour, `1`, `2`, `3` or
 * `true` colour even where the output is not a terminal (a CI log that draws colours); undefined when
 * unset or any other value, which leaves it to the terminal.
 */
function forcedColor(env: Readonly<Record<string, string | undefined>>): boolean | undefined {
  const value = env.FORCE_COLOR?.trim().toLowerCase();
  if (value === '0' || value === 'false') return false;
  if (value === '1' || value === '2' || value === '3' || value === 'true') return true;
  return undefined;
}

/**
 * Colour: as `FORCE_COLOR` says, else on a terminal that draws escape sequences; `--no-color` and
 * `NO_COLOR` (any value) turn it off whatever `FORCE_COLOR` says.
 */
export function colorOn(stream: { readonly isTTY: boolean }, env: Readonly<Record<string, string | undefined>>, flag: boolean): boolean {
  if (!flag || env.NO_COLOR) return false;
  return forcedColor(env) ?? (stream.isTTY && drawsEscapeSequences(env));
}

/** Whether voxform's own sequences reach `stream`: on a terminal, or where `FORCE_COLOR` asks for colour (colorOn decides whether there are any). */
export function ownSequencesPass(stream: { readonly isTTY?: boolean | undefined }, env: Readonly<Record<string, string | undefined>>): boolean {
  return Boolean(stream.isTTY) || forcedColor(env) === true;
}

/** The palette: marked sequences when `enabled` (a terminal with colour on), the text as it is otherwise. */
export function terminalColors(enabled: boolean): Colors {
  return enabled ? COLORS : PLAIN;
}
