import { describe, expect, it } from 'vitest';
import { readSse, SseParser, SseStreamTooLargeError, type SseEvent } from '../../src/api/sse.js';

/** A stream exercising every line ending, multi-byte characters, comments, multi-line data and fields. */
const STREAM = [
  ': keep-alive comment\n',
  'data: {"choices":[{"index":0,"delta":{"content":"Héllo "},"finish_reason":null}]}\n\n',
  'data: {"choices":[{"index":0,"delta":{"content":"wörld 👋"},"finish_reason":null}]}\r\n\r\n',
  'event: note\rdata: first line\rdata: second line\r\r',
  'id: 42\nretry: 1500\ndata:no space after the colon\n\n',
  'data\n\n',
  'data: 日本語のテキスト\r\n',
  'unknown: ignored\r\n\r\n',
  'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n',
  'data: [DONE]\n\n',
].join('');

const EXPECTED: SseEvent[] = [
  { event: 'message', data: '{"choices":[{"index":0,"delta":{"content":"Héllo "},"finish_reason":null}]}', id: undefined, retry: undefined },
  { event: 'message', data: '{"choices":[{"index":0,"delta":{"content":"wörld 👋"},"finish_reason":null}]}', id: undefined, retry: undefined },
  { event: 'note', data: 'first line\nsecond line', id: undefined, retry: undefined },
  { event: 'message', data: 'no space after the colon', id: '42', retry: 1500 },
  { event: 'message', data: '', id: '42', retry: undefined },
  { event: 'message', data: '日本語のテキスト', id: '42', retry: undefined },
  { event: 'message', data: '{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}', id: '42', retry: undefined },
  { event: 'message', data: '[DONE]', id: '42', retry: undefined },
];

function parseChunks(chunks: Uint8Array[]): SseEvent[] {
  const parser = new SseParser();
  const events = chunks.flatMap((chunk) => parser.push(chunk));
  return [...events, ...parser.end()];
}

describe('SseParser', () => {
  const bytes = new TextEncoder().encode(STREAM);

  it('parses the stream in one chunk', () => {
    expect(parseChunks([bytes])).toEqual(EXPECTED);
  });

  it('gives the same events when the stream is split at every byte boundary', () => {
    for (let cut = 0; cut <= bytes.length; cut++) {
      const events = parseChunks([bytes.subarray(0, cut), bytes.subarray(cut)]);
      expect(events, `split at byte ${cut}`).toEqual(EXPECTED);
    }
  });

  it('gives the same events when every byte arrives alone', () => {
    expect(parseChunks([...bytes].map((byte) => Uint8Array.of(byte)))).toEqual(EXPECTED);
  });

  it('gives the same events for every pair of cuts around the CRLF and multi-byte characters', () => {
    // Every two-cut split of the region holding CR/LF pairs and 4-byte characters.
    const start = STREAM.indexOf('wörld') - 4;
    const end = new TextEncoder().encode(STREAM.slice(0, STREAM.indexOf('id: 42'))).length;
    for (let a = start; a < end; a++) {
      for (let b = a; b < end; b += 3) {
        const events = parseChunks([bytes.subarray(0, a), bytes.subarray(a, b), bytes.subarray(b)]);
        expect(events, `cuts at ${a} and ${b}`).toEqual(EXPECTED);
      }
    }
  });

  it('keeps a CR at the end of a chunk from doubling with the LF that starts the next, even across an empty chunk', () => {
    const parser = new SseParser();
    expect(parser.push('data: a\r')).toEqual([]);
    expect(parser.push(new Uint8Array(0))).toEqual([]);
    expect(parser.push('\n')).toEqual([]); // the LF of the CRLF: not a blank line
    const events = [...parser.push('data: b\n\n'), ...parser.end()];
    expect(events.map((e) => e.data)).toEqual(['a\nb']);
  });

  it('delivers a last event that lacks its blank line', () => {
    const parser = new SseParser();
    expect(parser.push('data: tail')).toEqual([]);
    expect(parser.end()).toEqual([{ event: 'message', data: 'tail', id: undefined, retry: undefined }]);
  });

  it('strips a byte-order mark at the start', () => {
    const withBom = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('data: x\n\n')]);
    expect(parseChunks([withBom.subarray(0, 2), withBom.subarray(2)]).map((e) => e.data)).toEqual(['x']);
  });

  it('reads an async byte stream', async () => {
    async function* source() {
      for (let i = 0; i < bytes.length; i += 7) yield bytes.subarray(i, i + 7);
    }
    const events: SseEvent[] = [];
    for await (const event of readSse(source())) events.push(event);
    expect(events).toEqual(EXPECTED);
  });
});

describe('SseParser bounds', () => {
  it('refuses an event that grows without ever ending, instead of buffering it', () => {
    const parser = new SseParser();
    const line = `data: ${'x'.repeat(64 * 1024)}\n`;
    expect(() => {
      for (let i = 0; i < 64; i++) parser.push(line);
    }).toThrow(SseStreamTooLargeError);
  });
});
