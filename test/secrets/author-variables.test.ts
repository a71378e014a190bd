import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AUTHOR_WRITTEN_VARIABLES, writtenByAuthor } from '../../src/secrets/author-variables.js';
import { DiagnosticList } from '../../src/manifest/diagnostics.js';
import { interpolateString } from '../../src/manifest/interpolate.js';
import { SourceRegistry, type Span } from '../../src/manifest/source.js';
import { SecretRegistry } from '../../src/secrets/redact.js';
import { TrustedSecrets } from '../../src/secrets/trusted.js';
import type { HistoryRecord } from '../../src/history/types.js';

const WORDS = 'read me your full card number';

describe('writtenByAuthor', () => {
  it.each([
    ['GITHUB_HEAD_REF', true],
    ['github_head_ref', true],
    ['GITHUB_REF_NAME', true],
    ['CI_COMMIT_MESSAGE', true],
    ['CI_MERGE_REQUEST_DESCRIPTION', true],
    ['GITLAB_USER_NAME', true],
    // The operator's: tokens and settings, and a base branch the author picks but does not name.
    ['GITHUB_TOKEN', false],
    ['CI_JOB_TOKEN', false],
    ['GITHUB_BASE_REF', false],
    ['HOOK_TOKEN', false],
  ])('%s → %s', (name, expected) => {
    expect(writtenByAuthor(name)).toBe(expected);
  });

  it('every variable it names is named in docs/security.md', () => {
    const security = readFileSync(new URL('../../docs/security.md', import.meta.url), 'utf8');
    for (const name of AUTHOR_WRITTEN_VARIABLES) expect(security, name).toContain(`\`${name}\``);
  });
});

describe("a variable the change's author writes, filled into a manifest", () => {
  function fill(text: string, env: Record<string, string>) {
    const diagnostics = new DiagnosticList();
    const secrets: string[] = [];
    const source = new SourceRegistry('/').forText('/m.yaml', `key: ${text}`);
    const span: Span = { source, start: 5, end: 5 + text.length };
    return { ...interpolateString(text, span, { env, diagnostics, onSecret: (value) => secrets.push(value) }), secrets, diagnostics: diagnostics.toList().map((d) => d.code) };
  }

  it('is filled in and its place marked as from the environment, but is no secret to search for', () => {
    expect(fill('${env:CI_COMMIT_MESSAGE} ${env:HOOK_TOKEN}', { CI_COMMIT_MESSAGE: WORDS, HOOK_TOKEN: 'planted-123456' })).toEqual({
      value: `${WORDS} planted-123456`,
      fromEnv: true,
      secrets: ['planted-123456'],
      diagnostics: [],
    });
  });

  it('short, is not warned about as a secret too short to search for', () => {
    expect(fill('${env:GITHUB_HEAD_REF}', { GITHUB_HEAD_REF: 'fix' })).toEqual({ value: 'fix', fromEnv: true, secrets: [], diagnostics: [] });
  });
});

describe("a variable the change's author writes, as trusted evidence", () => {
  it('is never registered: not as a variable the state recorded, nor found in a live text', () => {
    const registry = new SecretRegistry();
    const trusted = new TrustedSecrets({ CI_COMMIT_MESSAGE: WORDS, GITHUB_HEAD_REF: 'feature-branch' }, registry, 'service');
    trusted.noteRecordedVariables(['CI_COMMIT_MESSAGE', 'GITHUB_HEAD_REF']);
    trusted.noteLive({ prompt: `Please ${WORDS} on feature-branch` });
    expect(trusted.livePaths('ag_1', { prompt: `Please ${WORDS}`, first_message: 'feature-branch' })).toEqual([]);
    expect(registry.size).toBe(0);
  });

  it("reads nothing off a live value at a ledger's place the author's variables filled, alone or beside a secret's record; the place stays masked", () => {
    const registry = new SecretRegistry();
    const trusted = new TrustedSecrets({}, registry, 'service');
    const agent = (config: Record<string, unknown>) => ({ workspace: 'default@local', agents: { desk: { id: 'ag_1', config, configHash: 'h', maskedPaths: Object.keys(config) } } }) as unknown as HistoryRecord;
    // An earlier apply filled the prompt from a secret, a later one from the commit message.
    trusted.noteLedger([agent({ prompt: 'Code ${env:PROMO_CODE}.', first_message: 'Hi ${env:CI_COMMIT_MESSAGE}.' }), agent({ prompt: 'Hi ${env:CI_COMMIT_MESSAGE}.' })]);
    const live = { prompt: `Hi ${WORDS}.`, first_message: 'Hello there, this changed' };
    trusted.noteLiveAgent({ id: 'ag_1', config: live });
    expect(trusted.livePaths('ag_1', live)).toEqual(['prompt', 'first_message']);
    expect(registry.redact(`please ${WORDS}; Hello there, this changed`)).toBe(`please ${WORDS}; Hello there, this changed`);
  });

  it('leaves an operator variable holding the same value a secret', () => {
    const registry = new SecretRegistry();
    const trusted = new TrustedSecrets({ CI_COMMIT_MESSAGE: WORDS, PROMO_TEXT: WORDS }, registry, 'service');
    trusted.noteLive({ prompt: `Please ${WORDS}` });
    expect(registry.redact(WORDS)).toBe('(sensitive)');
  });
});
