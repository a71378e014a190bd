/** Personal data written into what every caller's session carries: prompts, spoken texts, knowledge descriptions. */
import { personalDataPlaces } from '../places.js';
import type { PolicyRule } from '../types.js';
import { pluralWithArticle } from '../../util/plural.js';
import { matchOffsets, textHits } from './text-rules.js';

/**
 * What people group digits with, as typed or pasted from a document: spaces (the no-break, figure
 * and narrow no-break ones too) and dashes (the hyphen-minus, the Unicode hyphens and dashes, minus).
 */
const SPACES = String.raw` \u00a0\u2007\u202f`;
const DASHES = String.raw`\-\u2010-\u2015\u2212`;

/**
 * North American numbers (with or without +1, an extension `x12` may follow) and E.164 numbers;
 * never part of a longer run of digits, nor of one joined by dots (a version, `1.234.567.8901`).
 */
const PHONE = new RegExp(
  String.raw`(?<![\w+]|\d\.)(?:\+1[\s.${DASHES}]?)?(?:\(\d{3}\)\s?|\d{3}[\s.${DASHES}])\d{3}[\s.${DASHES}]\d{4}(?=x\d|(?!\.\d)\W|$)|(?<![\w+])\+[1-9]\d{7,14}(?!\d)`,
  'g',
);
/**
 * An address's parts as long as an address may have them (64 before the `@`, 63 a label): a part
 * without a bound would scan a pull request's long run of letters again from each of its characters
 * (time growing with the square of the run's length). Letters of any script (`josé@example.com`);
 * a name ending in a file's extension is a file (`logo@2x.png`), not an address.
 */
export const EMAIL = /[\p{L}\p{N}._%+-]{1,64}@[\p{L}\p{N}-]{1,63}(?:\.[\p{L}\p{N}-]{1,63})*\.(?!(?:png|jpe?g|gif|svg|webp|bmp|ico|pdf)\b)\p{L}{2,63}/gu;
/** Groups of digits, each parted from the next by one space or dash: where a card number may sit. */
const DIGIT_RUN = new RegExp(String.raw`\d+(?:[${SPACES}${DASHES}]\d+)*`, 'g');
const CARD_DIGITS = { min: 13, max: 19 };
/** US Social Security numbers (not the never-issued 000, 666 and 9xx areas) and UK National Insurance numbers. */
const NATIONAL_ID = new RegExp(
  String.raw`(?<![\w${DASHES}])(?!000|666|9\d\d)\d{3}[${DASHES}](?!00)\d{2}[${DASHES}](?!0000)\d{4}(?![\w${DASHES}])|\b(?![DFIQUV])[A-CEGHJ-PR-TW-Z](?![DFIQUVO])[A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b`,
  'g',
);

export function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/**
 * Offsets of the card numbers in a text: 13 to 19 digits passing the Luhn check, found within a run
 * of digits wherever they start and end at its groups' edges, so a card followed by its CVV or
 * expiry (`4111 1111 1111 1111 123`) or led by another number is found. A group is never split: a
 * run of 20 digits written together (an order id) holds no card, and a run's longest card is taken
 * first, so one card is counted once.
 */
function cardOffsets(text: string): number[] {
  const offsets: number[] = [];
  for (const run of text.matchAll(DIGIT_RUN)) {
    const groups = [...run[0].matchAll(/\d+/g)].map((group) => ({ offset: run.index + group.index, digits: group[0] }));
    for (let first = 0; first < groups.length; first++) {
      const last = longestCardFrom(groups, first);
      if (last === undefined) continue;
      offsets.push(groups[first]!.offset);
      first = last;
    }
  }
  return offsets;
}

/** The last group of the longest card number starting at group `first`, if there is one. */
function longestCardFrom(groups: ReadonlyArray<{ digits: string }>, first: number): number | undefined {
  let digits = '';
  const ends: Array<{ last: number; digits: string }> = [];
  for (let last = first; last < groups.length; last++) {
    digits += groups[last]!.digits;
    if (digits.length > CARD_DIGITS.max) break;
    if (digits.length >= CARD_DIGITS.min) ends.push({ last, digits });
  }
  return ends.reverse().find((end) => passesLuhn(end.digits))?.last;
}

const findEmails = matchOffsets(EMAIL);

export const PERSONAL_DATA_RULES: PolicyRule[] = [
  {
    id: 'pii-phone-number',
    area: 'personal-data',
    level: 'mandatory',
    summary: 'No phone numbers in prompts, spoken texts or knowledge descriptions.',
    hint: 'Configure a transfer number in flow.call_transfer, or pass caller details as session metadata; never write a person\'s number into the configuration.',
    check: ({ desired }) => textHits(personalDataPlaces(desired), matchOffsets(PHONE), (n, place) => `${place.field} holds ${pluralWithArticle(n, 'phone number')}`),
  },
  {
    id: 'pii-email-address',
    area: 'personal-data',
    level: 'mandatory',
    summary: 'No e-mail addresses in prompts, spoken texts or knowledge descriptions.',
    hint: 'Keep contact details in your systems and let a tool look them up; a shared mailbox the agent may name belongs in a knowledge file.',
    check: ({ desired }) => textHits(personalDataPlaces(desired), findEmails, (n, place) => `${place.field} holds ${pluralWithArticle(n, 'e-mail address', 'e-mail addresses')}`),
  },
  {
    id: 'pii-card-number',
    area: 'personal-data',
    level: 'mandatory',
    summary: 'No payment card numbers (13 to 19 digits passing the Luhn check).',
    hint: 'Remove the number; payments belong in a PCI-compliant tool, never in a prompt.',
    check: ({ desired }) => textHits(personalDataPlaces(desired), cardOffsets, (n, place) => `${place.field} holds ${pluralWithArticle(n, 'payment card number')}`),
  },
  {
    id: 'pii-national-id',
    area: 'personal-data',
    level: 'mandatory',
    summary: 'No national identity numbers (US Social Security numbers, UK National Insurance numbers).',
    hint: 'Remove the number; an agent that verifies identity should ask the caller and check it through a tool.',
    check: ({ desired }) => textHits(personalDataPlaces(desired), matchOffsets(NATIONAL_ID), (n, place) => `${place.field} holds ${pluralWithArticle(n, 'national identity number')}`),
  },
];
