/**
 * Where a text stops being JSON and what JSON wanted there: for the emulator's `json_invalid` answer
 * and for the files the operator names (operator-document.ts). JSON.parse's message names a position
 * for some mistakes only ("Unexpected token 'x', … is not valid JSON" and "Unexpected end of JSON
 * input" name none) and quotes the text, so the text is read again here, by RFC 8259's grammar.
 * It recurses per level: read only text whose nesting is bounded (parseOutsideJson, a JSON budget).
 */

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
const SIMPLE_ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);
const LITERALS = ['true', 'false', 'null'];

function isDigit(char: string | undefined): boolean {
  return char !== undefined && char >= '0' && char <= '9';
}

function isHexDigit(char: string | undefined): boolean {
  return char !== undefined && /^[0-9a-fA-F]$/.test(char);
}

/** Thrown where the text stops being JSON: `at` is that index (UTF-16 units), `expected` what JSON wanted there. */
class NotJsonAt {
  constructor(
    readonly at: number,
    readonly expected: string,
  ) {}
}

/** Reads one JSON value from `at` on, moving past it; throws NotJsonAt where it cannot. */
class JsonReader {
  at = 0;

  constructor(private readonly text: string) {}

  private peek(): string | undefined {
    return this.text[this.at];
  }

  private fail(expected: string): never {
    throw new NotJsonAt(this.at, expected);
  }

  private expect(char: string, expected = `"${char}"`): void {
    if (this.peek() !== char) this.fail(expected);
    this.at++;
  }

  skipWhitespace(): void {
    while (WHITESPACE.has(this.peek() ?? '')) this.at++;
  }

  value(): void {
    this.skipWhitespace();
    const char = this.peek();
    if (char === '{') return this.members('}', () => this.member());
    if (char === '[') return this.members(']', () => this.value());
    if (char === '"') return this.string();
    if (char === '-' || isDigit(char)) return this.number();
    const literal = LITERALS.find((word) => word[0] === char);
    if (literal === undefined) this.fail('a value (an object, a list, a string in double quotes, a number, true, false or null)');
    for (const letter of literal) this.expect(letter, `"${literal}" (JSON's only words are true, false and null; text goes in double quotes)`);
  }

  /** An object's or an array's items, from its opening bracket to `close`. */
  private members(close: string, item: () => void): void {
    this.at++;
    this.skipWhitespace();
    for (let first = true; this.peek() !== close; first = false) {
      if (!first) {
        this.expect(',', `"," or "${close}"`);
        this.skipWhitespace();
        if (this.peek() === close) this.fail(`another item after the comma (JSON allows no comma before "${close}")`);
      }
      item();
      this.skipWhitespace();
    }
    this.at++;
  }

  private member(): void {
    this.skipWhitespace();
    if (this.peek() !== '"') this.fail('a key in double quotes');
    this.string();
    this.skipWhitespace();
    this.expect(':', '":" after the key');
    this.value();
  }

  private string(): void {
    this.at++;
    for (;;) {
      const char = this.peek();
      // A control character must be escaped in a string.
      if (char === undefined) this.fail('the closing " of the string');
      if (char < ' ') this.fail('no control character inside a string (write a line break as \\n, a tab as \\t)');
      this.at++;
      if (char === '"') return;
      if (char !== '\\') continue;
      if (this.peek() === 'u') {
        this.at++;
        for (let digit = 0; digit < 4; digit++) {
          if (!isHexDigit(this.peek())) this.fail('four hex digits after \\u');
          this.at++;
        }
      } else if (SIMPLE_ESCAPES.has(this.peek() ?? '')) this.at++;
      else this.fail('an escape JSON knows after \\ (\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t or \\uXXXX)');
    }
  }

  private number(): void {
    if (this.peek() === '-') this.at++;
    if (this.peek() === '0') this.at++;
    else this.digits();
    if (this.peek() === '.') {
      this.at++;
      this.digits();
    }
    if (this.peek() === 'e' || this.peek() === 'E') {
      this.at++;
      if (this.peek() === '+' || this.peek() === '-') this.at++;
      this.digits();
    }
  }

  private digits(): void {
    if (!isDigit(this.peek())) this.fail('a digit');
    while (isDigit(this.peek())) this.at++;
  }
}

/**
 * Where the text first stops being JSON: the index (UTF-16 units) of the first character that cannot
 * continue it, or the text's length when it ends too soon, and what JSON wanted there; undefined when
 * the text is JSON.
 */
export function jsonSyntaxError(text: string): { at: number; expected: string } | undefined {
  const reader = new JsonReader(text);
  try {
    reader.value();
    reader.skipWhitespace();
    return reader.at === text.length ? undefined : { at: reader.at, expected: 'the end of the text: one JSON value, nothing after it' };
  } catch (error) {
    if (!(error instanceof NotJsonAt)) throw error;
    return { at: error.at, expected: error.expected };
  }
}

/**
 * The character position (counted in code points, as a Python service counts them) of the first
 * character that cannot continue the text as JSON, or the text's length in characters when it ends
 * too soon; undefined when the text is JSON.
 */
export function jsonErrorPosition(text: string): number | undefined {
  const error = jsonSyntaxError(text);
  return error === undefined ? undefined : [...text.slice(0, error.at)].length;
}
