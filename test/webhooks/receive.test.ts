import { describe, expect, it } from 'vitest';
import { validateAgainst } from '../../src/schema/validate.js';
import { describeEndOfCall, describePrefetch } from '../../src/webhooks/describe.js';
import { endOfCallPayload, prefetchQuery } from '../../src/webhooks/payload.js';
import { checkWebhookHeaders, parseEndOfCallWebhook, parsePrefetchRequest, prefetchAnswerProblem, prefetchResponse } from '../../src/webhooks/receive.js';
import { sampleCallRecord } from '../../src/webhooks/sample.js';

const SECRET = 'hook-secret-planted-5e4d3c2b';
const payload = endOfCallPayload(sampleCallRecord({ agentId: '-OKa', ts: 1_767_225_600 }));

describe('the payloads voxform builds', () => {
  it('a sample call makes an end-of-call payload the schema accepts', () => {
    expect(validateAgainst('EndOfCallPayload', payload)).toEqual([]);
    expect(payload).toMatchObject({ agent_id: '-OKa', call_status: 'user-ended', duration: 42, error_message: null });
  });

  it('rounds a record\'s fractional duration and characters to the whole numbers the payload holds', () => {
    const built = endOfCallPayload({ ...sampleCallRecord({ ts: 1 }), duration: 41.6, chars_used: 10.2 });
    expect(built).toMatchObject({ duration: 42, chars_used: 10 });
  });

  it('the prefetch query flattens metadata, and the spec parameters win over metadata of the same name', () => {
    const query = prefetchQuery({ session_id: 's1', agent_id: 'a1', from: '+15550100001', to: '', metadata: { session_id: 'x', to: 'y', visits: 3, tags: ['a'], none: null } });
    expect(query).toEqual({ session_id: 's1', agent_id: 'a1', from: '+15550100001', visits: '3', tags: '["a"]', none: '' });
    expect(validateAgainst('PrefetchWebhookQuery', query)).toEqual([]);
  });

  it('sends a metadata key named __proto__ as any other', () => {
    const query = prefetchQuery({ session_id: 's1', agent_id: 'a1', from: '', to: '', metadata: JSON.parse('{"__proto__":"vip"}') as Record<string, unknown> });
    expect(Object.entries(query)).toContainEqual(['__proto__', 'vip']);
  });
});

describe('parseEndOfCallWebhook', () => {
  const body = JSON.stringify(payload);

  it('accepts a payload as text, as bytes, or already parsed', () => {
    for (const form of [body, Buffer.from(body), JSON.parse(body) as unknown]) {
      const result = parseEndOfCallWebhook(form, {});
      expect(result).toEqual({ ok: true, value: payload });
    }
  });

  it('takes bytes in every form a server gives them: an ArrayBuffer (fetch-style `request.arrayBuffer()`), a DataView, a view into a larger buffer', () => {
    const bytes = new TextEncoder().encode(body);
    const padded = new Uint8Array(bytes.length + 8);
    padded.set(bytes, 4);
    const forms = [bytes.buffer, new DataView(bytes.buffer), padded.subarray(4, 4 + bytes.length), new DataView(padded.buffer, 4, bytes.length)];
    for (const form of forms) expect(parseEndOfCallWebhook(form, {})).toEqual({ ok: true, value: payload });
    expect(parseEndOfCallWebhook(new TextEncoder().encode('{"call_id": ').buffer, {})).toMatchObject({ ok: false, status: 400, reason: 'json' });
  });

  it('checks the expected headers: names in any case, values exactly', () => {
    const expectedHeaders = { 'X-Hook-Token': SECRET };
    expect(parseEndOfCallWebhook(body, { 'x-hook-token': SECRET }, { expectedHeaders }).ok).toBe(true);
    for (const headers of [{}, { 'x-hook-token': `${SECRET}x` }, { 'x-hook-token': SECRET.slice(1) }, { 'x-hook-token': '' }]) {
      const result = parseEndOfCallWebhook(body, headers, { expectedHeaders });
      expect(result).toMatchObject({ ok: false, status: 401, reason: 'headers', message: 'the secret header "X-Hook-Token" is missing or wrong' });
      expect(JSON.stringify(result)).not.toContain(SECRET);
    }
  });

  it('refuses a body that is not JSON (400) or not an end-of-call payload (422), saying where', () => {
    expect(parseEndOfCallWebhook('{not json', {})).toMatchObject({ ok: false, status: 400, reason: 'json' });
    const missing = parseEndOfCallWebhook(JSON.stringify({ ...payload, call_id: undefined }), {});
    expect(missing).toMatchObject({ ok: false, status: 422, reason: 'schema', message: 'not an end-of-call payload: call_id is required' });
    const badStatus = parseEndOfCallWebhook({ ...payload, call_status: 'finished' }, {});
    expect(badStatus).toMatchObject({ ok: false, status: 422 });
    expect(badStatus.ok || badStatus.issues[0]?.path).toEqual(['call_status']);
  });

  it('checks the headers before it reads the body', () => {
    expect(parseEndOfCallWebhook('{not json', {}, { expectedHeaders: { 'x-token': SECRET } })).toMatchObject({ status: 401 });
  });
});

describe('checkWebhookHeaders', () => {
  it('names every missing or wrong header, and joins a repeated header as Node does', () => {
    expect(checkWebhookHeaders({ a: '1', b: '2' }, { a: '1', b: '2' })).toEqual([]);
    expect(checkWebhookHeaders({ a: '1' }, { a: '2', b: '2' })).toEqual(['a', 'b']);
    expect(checkWebhookHeaders({ a: ['1', '2'] }, { a: '1, 2' })).toEqual([]);
    expect(checkWebhookHeaders({ a: '1' })).toEqual([]);
  });

  it('matches nothing to an expected value left empty (an unset variable): an empty header anyone can send does not pass', () => {
    expect(checkWebhookHeaders({ 'x-hook-token': '' }, { 'x-hook-token': '' })).toEqual(['x-hook-token']);
    expect(checkWebhookHeaders({}, { 'x-hook-token': '' })).toEqual(['x-hook-token']);
    expect(parsePrefetchRequest('/p?session_id=s&agent_id=a', { 'x-hook-token': '' }, { expectedHeaders: { 'x-hook-token': '' } })).toMatchObject({ ok: false, status: 401 });
    // `{ 'x-hook-token': process.env.HOOK_TOKEN }` with the variable unset: a refusal, not a thrown TypeError.
    expect(checkWebhookHeaders({ 'x-hook-token': 'anything' }, { 'x-hook-token': undefined })).toEqual(['x-hook-token']);
    expect(parseEndOfCallWebhook('{}', {}, { expectedHeaders: { 'x-hook-token': undefined } })).toMatchObject({ ok: false, status: 401 });
  });

  it('reads a fetch-style Headers, as frameworks give them; takes no headers as all missing, and refuses a null expectation', () => {
    expect(checkWebhookHeaders(new Headers({ 'X-Hook-Token': 'secret1' }), { 'x-hook-token': 'secret1' })).toEqual([]);
    expect(checkWebhookHeaders(new Headers({ 'x-hook-token': 'nope' }), { 'x-hook-token': 'secret1' })).toEqual(['x-hook-token']);
    expect(checkWebhookHeaders(null as never, { 'x-hook-token': 'secret1' })).toEqual(['x-hook-token']);
    // Expecting nothing would let every request through.
    expect(() => checkWebhookHeaders({}, null as never)).toThrow(expect.objectContaining({ code: 'invalid_option', message: 'checkWebhookHeaders(): `expectedHeaders` must be an object, not null.' }));
    expect(() => parseEndOfCallWebhook('{}', {}, { expectedHeaders: null as never })).toThrow(expect.objectContaining({ code: 'invalid_option' }));
  });
});

describe('parsePrefetchRequest', () => {
  it('reads the spec parameters and keeps the rest as metadata', () => {
    const result = parsePrefetchRequest('/prefetch?session_id=s1&agent_id=a1&from=%2B15550100001&customer=c1&customer=c2');
    expect(result).toEqual({ ok: true, value: { query: { session_id: 's1', agent_id: 'a1', from: '+15550100001', customer: 'c2' }, metadata: { customer: 'c2' } } });
    expect(parsePrefetchRequest(new URL('https://hooks.example.com/p?session_id=s&agent_id=a')).ok).toBe(true);
  });

  it('keeps a parameter named __proto__ as metadata, an own key like any other, never the prototype', () => {
    const result = parsePrefetchRequest('/p?session_id=s&agent_id=a&__proto__=vip');
    expect(result.ok && Object.entries(result.value.metadata)).toEqual([['__proto__', 'vip']]);
    expect(result.ok && Object.getPrototypeOf(result.value.query)).toBe(Object.prototype);
  });

  it("a parameter given twice takes its last value: the service's, after the configured URL's own", () => {
    const result = parsePrefetchRequest('/prefetch?session_id=configured&agent_id=configured&session_id=s1&agent_id=a1');
    expect(result).toMatchObject({ ok: true, value: { query: { session_id: 's1', agent_id: 'a1' }, metadata: {} } });
  });

  it('refuses a request without session_id or agent_id (422) and checks headers (401)', () => {
    expect(parsePrefetchRequest('/p?agent_id=a1')).toMatchObject({ ok: false, status: 422, message: 'not a prefetch request: session_id is required' });
    expect(parsePrefetchRequest('/p?session_id=s&agent_id=a', { 'x-t': 'no' }, { expectedHeaders: { 'x-t': SECRET } })).toMatchObject({ ok: false, status: 401 });
  });

  it('answers a URL no parser can read with a 400 rather than throwing', () => {
    expect(parsePrefetchRequest('//[')).toEqual({ ok: false, status: 400, reason: 'url', message: 'not a prefetch request: its URL cannot be parsed', issues: [] });
  });
});

describe('prefetch answers', () => {
  it('accepts what the service uses and names what it would ignore', () => {
    expect(prefetchAnswerProblem({})).toBeUndefined();
    expect(prefetchAnswerProblem({ metadata: { tier: 'gold' }, extra_prompt: 'VIP.' })).toBeUndefined();
    expect(prefetchAnswerProblem([])).toBe('not a JSON object');
    expect(prefetchAnswerProblem('text')).toBe('not a JSON object');
    expect(prefetchAnswerProblem({ metadata: 'gold' })).toBe('metadata must be object');
    expect(prefetchAnswerProblem({ extra_prompt: 3 })).toBe('extra_prompt must be string');
  });

  it('prefetchResponse builds the JSON text, and throws on a wrong shape', () => {
    expect(JSON.parse(prefetchResponse({ metadata: { tier: 'gold' }, extra_prompt: 'VIP.' }))).toEqual({ metadata: { tier: 'gold' }, extra_prompt: 'VIP.' });
    expect(() => prefetchResponse({ metadata: 'gold' } as never)).toThrowError('not a prefetch answer: metadata must be object');
  });
});

describe('the one-line summaries of webhook serve', () => {
  it('show what arrived, with metadata keys but never values, headers or the agent config', () => {
    const withSecrets = { ...payload, agent_config: { session_data_webhook: { url: 'https://x', headers: { 'x-hook-token': SECRET } } }, metadata: { customer_id: 'PERSONAL-42' } };
    const line = describeEndOfCall(withSecrets);
    expect(line).toBe('call sample-call-0001, agent -OKa, user-ended, 42 s, 4 messages, 1 function call, 0.2482 credits, metadata customer_id');
    expect(line).not.toContain(SECRET);
    const parsed = parsePrefetchRequest('/p?session_id=s1&agent_id=a1&customer_id=PERSONAL-42');
    if (!parsed.ok) throw new Error(parsed.message);
    expect(describePrefetch(parsed.value)).toBe('session s1, agent a1, metadata customer_id');
  });
});
