/** What a voice reads badly: texts spoken as written (first message, transfer and goodbye messages, …). */
import { allSpokenPlaces } from '../places.js';
import type { PolicyRule } from '../types.js';
import { pluralWithArticle } from '../../util/plural.js';
import { matchOffsets, textHits } from './text-rules.js';
import { perDistinctText } from '../distinct-texts.js';

/** Words of a first message past which callers talk over it. */
const FIRST_MESSAGE_MAX_WORDS = 30;

/**
 * Bold, code, links, headings and list items. No part scans past what it can match: a link's text
 * holds no `[` and has a bound, as has its address, and a list item's indent is spaces on its own line.
 * Otherwise a pull request's line of `[` (or its thousands of empty lines) would be scanned again from
 * each of its characters, in time growing with the square of its length.
 */
export const MARKDOWN = /\*\*[^*\n]+\*\*|__[^_\n]+__|`[^`\n]+`|\[[^[\]\n]{1,200}\]\([^)\n]{1,300}\)|^\s{0,3}#{1,6}\s|^[^\S\n]*[-*+]\s+\S/gm;
const URL = /\bhttps?:\/\/\S+|\bwww\.[a-z0-9-]+\.\S+/gi;
/**
 * Emoji as they are drawn: each whole sequence (a flag, a keycap, a skin tone or family joined by
 * zero-width joiners) is one match, and a character that is text unless asked to be emoji (™ © ®
 * without U+FE0F) is none. The `v` flag's RGI_Emoji is Unicode's own list of such sequences; the
 * constructor, since the compile target predates the flag.
 */
let emoji: ((text: string) => readonly number[]) | undefined;
/**
 * Where a text's emoji start. Every emoji holds a character past ASCII, and the list compiles in
 * milliseconds, which every run that checks the policy would pay: it is made for the first text
 * that could hold one.
 */
function emojiOffsets(text: string): readonly number[] {
  if (!/[^\x00-\x7f]/.test(text)) return [];
  emoji ??= matchOffsets(new RegExp(String.raw`\p{RGI_Emoji}`, 'gv'));
  return emoji(text);
}
/** Symbols a voice spells out or skips: "&" read as "ampersand", "#" as "hash". */
const SYMBOLS = /[&@#%=<>|~^\\{}]/g;
/** Written abbreviations a voice reads letter by letter or as a word. */
const ABBREVIATIONS = /(?<![\w.])(?:e\.g\.|i\.e\.|etc\.|approx\.|vs\.|appt\b|hrs?\b|mins\b|w\/(?=\s|\w))/g;

function words(text: string): number {
  return text.split(/\s+/).filter((word) => word !== '').length;
}

export const SPEECH_RULES: PolicyRule[] = [
  {
    id: 'speech-markdown',
    area: 'speech',
    level: 'advisory',
    summary: 'No Markdown (bold, code, links, headings, bullets) in spoken texts.',
    hint: 'Write the text as it should sound: plain sentences, no formatting marks.',
    check: ({ desired }) => textHits(allSpokenPlaces(desired), matchOffsets(MARKDOWN), (n, place) => `${place.field} holds ${pluralWithArticle(n, 'piece of Markdown', 'pieces of Markdown')}, which a voice reads out as symbols`),
  },
  {
    id: 'speech-url',
    area: 'speech',
    level: 'advisory',
    summary: 'No URLs in spoken texts.',
    hint: 'Say where to go in words ("on our website, acme dental dot com") or offer to send a text message.',
    check: ({ desired }) => textHits(allSpokenPlaces(desired), matchOffsets(URL), (n, place) => `${place.field} holds ${pluralWithArticle(n, 'URL')}, which a voice reads character by character`),
  },
  {
    id: 'speech-emoji',
    area: 'speech',
    level: 'advisory',
    summary: 'No emoji in spoken texts.',
    hint: 'Remove the emoji: a voice either skips it or reads its name.',
    check: ({ desired }) => textHits(allSpokenPlaces(desired), emojiOffsets, (n, place) => `${place.field} holds ${pluralWithArticle(n, 'emoji', 'emoji')}`),
  },
  {
    id: 'speech-symbols',
    area: 'speech',
    level: 'advisory',
    summary: 'No unexpanded symbols (& @ # % = < > | ~ ^ \\ { }) in spoken texts.',
    hint: 'Write the words: "and" for "&", "percent" for "%", "at" for "@".',
    check: ({ desired }) => textHits(allSpokenPlaces(desired), matchOffsets(SYMBOLS), (n, place) => `${place.field} holds ${pluralWithArticle(n, 'symbol')} a voice reads badly`),
  },
  {
    id: 'speech-abbreviations',
    area: 'speech',
    level: 'advisory',
    summary: 'No written abbreviations (e.g., i.e., etc., approx., appt, hrs, mins, w/) in spoken texts.',
    hint: 'Write the words in full: "for example", "about", "appointment", "hours".',
    check: ({ desired }) => textHits(allSpokenPlaces(desired), matchOffsets(ABBREVIATIONS), (n, place) => `${place.field} holds ${pluralWithArticle(n, 'abbreviation')} a voice reads letter by letter`),
  },
  {
    id: 'speech-first-message-length',
    area: 'speech',
    level: 'advisory',
    summary: `A first message of at most ${FIRST_MESSAGE_MAX_WORDS} words.`,
    hint: 'Greet, say who is speaking and ask one question; say the rest once the caller has spoken.',
    check: ({ desired }) => {
      const wordsOf = perDistinctText(words);
      return allSpokenPlaces(desired)
        .filter((place) => place.field === 'first_message' && wordsOf(place.text) > FIRST_MESSAGE_MAX_WORDS)
        .map((place) => ({ resource: place.resource, message: `first_message has ${wordsOf(place.text)} words (at most ${FIRST_MESSAGE_MAX_WORDS}): callers talk over a long greeting`, location: place.at(0) }));
    },
  },
];
