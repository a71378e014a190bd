/**
 * Where a request body stops being JSON, for the emulator's `json_invalid` answer. JSON.parse's
 * message names a position for some mistakes only ("Unexpected token 'x', … is not valid JSON" and
 * "Unexpected end of JSON input" name none), so the text is read again here, by RFC 8259's grammar.
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

/** Thrown where the text stops being JSON: `at` is that index. */
class NotJsonAt {
  constructor(readonly at: number) {}
}

/** Reads one JSON value from `at` on, moving past it; throws NotJsonAt where it cannot. */
class JsonReader {
  at = 0;

  constructor(private readonly text: string) {}

  private peek(): string | undefined {
    return this.text[this.at];
  }

  private fail(): never {
    throw new NotJsonAt(this.at);
  }

  private expect(char: string): void {
    if (this.peek() !== char) this.fail();
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
    if (literal === undefined) this.fail();
    for (const letter of literal) this.expect(letter);
  }

  /** An object's or an array's items, from its opening bracket to `close`. */
  private members(close: string, item: () => void): void {
    this.at++;
    this.skipWhitespace();
    if (this.peek() === close) {
      this.at++;
      return;
    }
    for (;;) {
      item();
      this.skipWhitespace();
      if (this.peek() === close) {
        this.at++;
        return;
      }
      this.expect(',');
    }
  }

  private member(): void {
    this.skipWhitespace();
    if (this.peek() !== '"') this.fail();
    this.string();
    this.skipWhitespace();
    this.expect(':');
    this.value();
  }

  private string(): void {
    this.at++;
    for (;;) {
      const char = this.peek();
      // A control character must be escaped in a string.
      if (char === undefined || char < ' ') this.fail();
      this.at++;
      if (char === '"') return;
      if (char !== '\\') continue;
      if (this.peek() === 'u') {
        this.at++;
        for (let digit = 0; digit < 4; digit++) {
          if (!isHexDigit(this.peek())) this.fail();
          this.at++;
        }
      } else if (SIMPLE_ESCAPES.has(this.peek() ?? '')) this.at++;
      else this.fail();
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
    if (!isDigit(this.peek())) this.fail();
    while (isDigit(this.peek())) this.at++;
  }
}

/**
 * The character position (counted in code points, as a Python service counts them) of the first
 * character that cannot continue the text as JSON, or the text's length in characters when it ends
 * too soon; undefined when the text is JSON.
 */
export function jsonErrorPosition(text: string): number | undefined {
  const reader = new JsonReader(text);
  let at: number;
  try {
    reader.value();
    reader.skipWhitespace();
    if (reader.at === text.length) return undefined;
    at = reader.at;
  } catch (error) {
    if (!(error instanceof NotJsonAt)) throw error;
    at = error.at;
  }
  return [...text.slice(0, at)].length;
}
