import { describe, expect, it } from 'vitest';
import { diffEnvironments, renderEnvironmentDiffJson, renderEnvironmentDiffMarkdown, renderEnvironmentDiffText } from '../../src/promote/environment-diff.js';
import type { Agent } from '../../src/schema/types.gen.js';
import { desiredAgent, desiredState } from '../helpers/desired.js';

const HEADER_SECRET = 'header-secret-4d5e6f';
const ENV_SECRET = 'env-valued-prompt-secret-77';

function environment(name: string, id: string, config: Record<string, unknown>, extra: Parameters<typeof desiredAgent>[1] = {}) {
  const state = desiredState({ agents: [desiredAgent('desk', { id, config, ...extra })] });
  return { ...state, environment: name };
}

function live(id: string, config: Record<string, unknown>): Agent {
  return { id, name: 'Desk', config } as unknown as Agent;
}

describe('voxform diff', () => {
  const webhook = (token: string) => ({ url: 'https://hooks.example/end', headers: { 'x-token': token } });
  const staging = environment('staging', 'ag_s', { prompt: 'Line one.\nLine two.\n', language: 'en-GB', session_data_webhook: webhook(HEADER_SECRET) });
  const production = environment('production', 'ag_p', { prompt: 'Line one.\nLine two.\n', language: 'en-US', session_data_webhook: webhook(HEADER_SECRET) });

  it('marks what the overlays set differently as expected, and shows the rest as the plan shows a change, secrets redacted', () => {
    const diff = diffEnvironments(
      { a: staging, b: production },
      {
        a: new Map([['desk', live('ag_s', { prompt: 'Line one.\nLine two, new.\n', language: 'en-GB', session_data_webhook: webhook(HEADER_SECRET) })]]),
        b: new Map([['desk', live('ag_p', { prompt: 'Line one.\nLine two.\n', language: 'en-US', session_data_webhook: webhook('another-secret-8a9b') })]]),
      },
    );
    expect(diff.agents[0]?.differences.map((d) => [d.path, d.expected, d.sensitive])).toEqual([
      ['config.language', true, false],
      ['config.prompt', false, false],
      ['config.session_data_webhook.headers.x-token', false, true],
    ]);
    const text = renderEnvironmentDiffText(diff);
    expect(text).toBe(
      [
        'The live agents of staging and production (1 agent) differ in 3 fields: 2 unexpected, 1 set differently by the overlays.',
        '',
        'agent.desk (staging ag_s → production ag_p)',
        '  ~ config.language: "en-GB" → "en-US" (expected: the overlays differ)',
        "  ~ config.prompt: (drift: staging's live value is not what its manifest sets)",
        '      @@ -1,2 +1,2 @@',
        '       Line one.',
        '      -Line two, new.',
        '      +Line two.',
        "  ~ config.session_data_webhook.headers.x-token: (sensitive value changed) (drift: production's live value is not what its manifest sets)",
        '',
      ].join('\n'),
    );
    for (const rendered of [text, renderEnvironmentDiffJson(diff), renderEnvironmentDiffMarkdown(diff)]) {
      expect(rendered).not.toContain(HEADER_SECRET);
      expect(rendered).not.toContain('another-secret-8a9b');
    }
    expect(JSON.parse(renderEnvironmentDiffJson(diff)).summary).toEqual({ agents: 1, differences: 3, unexpected: 2 });
  });

  it('counts drift in a field the overlays set differently as unexpected, naming each side whose live value is not its manifest\'s', () => {
    const diff = diffEnvironments(
      { a: staging, b: production },
      {
        a: new Map([['desk', live('ag_s', { prompt: 'Line one.\nLine two.\n', language: 'fr-FR', session_data_webhook: webhook(HEADER_SECRET) })]]),
        b: new Map([['desk', live('ag_p', { prompt: 'Line one.\nLine two.\n', language: 'de-DE', session_data_webhook: webhook(HEADER_SECRET) })]]),
      },
    );
    expect(diff.agents[0]?.differences.map((d) => [d.path, d.expected, d.drift])).toEqual([['config.language', false, ['staging', 'production']]]);
    expect(renderEnvironmentDiffText(diff)).toContain(
      '1 field: 1 unexpected, 0 set differently by the overlays.\n\nagent.desk (staging ag_s → production ag_p)\n  ~ config.language: "fr-FR" → "de-DE" (drift: the live values of staging and production are not what their manifests set)\n',
    );
    expect(renderEnvironmentDiffMarkdown(diff)).toContain('- `config.language`: "fr-FR" → "de-DE" *(drift: the live values of staging and production are not what their manifests set)*');
    const json = JSON.parse(renderEnvironmentDiffJson(diff));
    expect(json.summary).toEqual({ agents: 1, differences: 1, unexpected: 1 });
    expect(json.agents[0].differences[0]).toMatchObject({ path: 'config.language', expected: false, drift: ['staging', 'production'] });
    // One side drifted: still unexpected, that side named.
    const oneSide = diffEnvironments(
      { a: staging, b: production },
      { a: new Map([['desk', live('ag_s', { prompt: 'Line one.\nLine two.\n', language: 'en-GB', session_data_webhook: webhook(HEADER_SECRET) })]]), b: new Map([['desk', live('ag_p', { prompt: 'Line one.\nLine two.\n', language: 'de-DE', session_data_webhook: webhook(HEADER_SECRET) })]]) },
    );
    expect(oneSide.agents[0]?.differences.map((d) => [d.path, d.expected, d.drift])).toEqual([['config.language', false, ['production']]]);
  });

  it('shows a field whose diff has more lines than one call takes as arguments, not a stack overflow', () => {
    const long = Array.from({ length: 300_000 }, (_, index) => `line ${index}`).join('\n');
    const diff = diffEnvironments(
      { a: environment('staging', 'ag_s', { prompt: 'One line.' }), b: environment('production', 'ag_p', { prompt: 'One line.' }) },
      { a: new Map([['desk', live('ag_s', { prompt: long })]]), b: new Map([['desk', live('ag_p', { prompt: 'One line.' })]]) },
    );
    expect(renderEnvironmentDiffText(diff)).toContain('\n      -line 299999\n');
  });

  it('a secret on one side alone reads as set on that side and unset on the other, never as changed', () => {
    const withHook = environment('staging', 'ag_s', { language: 'en-GB', session_data_webhook: webhook(HEADER_SECRET) });
    const without = environment('production', 'ag_p', { language: 'en-GB' });
    const liveWith = new Map([['desk', live('ag_s', { language: 'en-GB', session_data_webhook: webhook(HEADER_SECRET) })]]);
    const liveWithout = new Map([['desk', live('ag_p', { language: 'en-GB' })]]);
    const removed = renderEnvironmentDiffText(diffEnvironments({ a: withHook, b: without }, { a: liveWith, b: liveWithout }));
    expect(removed).toContain('  ~ config.session_data_webhook.headers.x-token: (sensitive value) → (unset) (expected: the overlays differ)\n');
    expect(removed).toContain('  ~ config.session_data_webhook.url: "https://hooks.example/end" → (unset) (expected: the overlays differ)\n');
    const added = renderEnvironmentDiffText(diffEnvironments({ a: without, b: withHook }, { a: liveWithout, b: liveWith }));
    expect(added).toContain('  + config.session_data_webhook.headers.x-token: (unset) → (sensitive value) (expected: the overlays differ)\n');
    expect(added).toContain('  + config.session_data_webhook.url: (unset) → "https://hooks.example/end" (expected: the overlays differ)\n');
    // Markdown shows no marker: the side that lacks the field is said in words.
    const markdown = renderEnvironmentDiffMarkdown(diffEnvironments({ a: without, b: withHook }, { a: liveWithout, b: liveWith }));
    expect(markdown).toContain('- `config.session_data_webhook.headers.x-token`: (unset) → (sensitive value) *(expected: the overlays differ)*\n');
    for (const rendered of [removed, added, markdown]) expect(rendered).not.toContain(HEADER_SECRET);
  });

  it('in JSON, the side that holds no secret is null, as any unset side is, and the other side is redacted', () => {
    const withHook = environment('staging', 'ag_s', { language: 'en-GB', session_data_webhook: webhook(HEADER_SECRET) });
    const without = environment('production', 'ag_p', { language: 'en-GB' });
    const liveWith = new Map([['desk', live('ag_s', { language: 'en-GB', session_data_webhook: webhook(HEADER_SECRET) })]]);
    const liveWithout = new Map([['desk', live('ag_p', { language: 'en-GB' })]]);
    const fields = (json: string) => Object.fromEntries(JSON.parse(json).agents[0].differences.map((d: { path: string }) => [d.path, d]));
    const removed = renderEnvironmentDiffJson(diffEnvironments({ a: withHook, b: without }, { a: liveWith, b: liveWithout }));
    expect(fields(removed)['config.session_data_webhook.headers.x-token']).toEqual({ path: 'config.session_data_webhook.headers.x-token', expected: true, drift: [], sensitive: true, a: '(sensitive)', b: null });
    expect(fields(removed)['config.session_data_webhook.url']).toMatchObject({ a: 'https://hooks.example/end', b: null });
    const added = renderEnvironmentDiffJson(diffEnvironments({ a: without, b: withHook }, { a: liveWithout, b: liveWith }));
    expect(fields(added)['config.session_data_webhook.headers.x-token']).toMatchObject({ sensitive: true, a: null, b: '(sensitive)' });
    for (const rendered of [removed, added]) expect(rendered).not.toContain(HEADER_SECRET);
  });

  it('redacts a place trusted evidence says holds a secret, and says when nothing differs', () => {
    const a = new Map([['desk', live('ag_s', { prompt: `Use ${ENV_SECRET}.`, language: 'en-GB' })]]);
    const b = new Map([['desk', live('ag_p', { prompt: 'Use nothing.', language: 'en-US' })]]);
    const diff = diffEnvironments({ a: staging, b: production }, { a, b }, new Map([['desk', ['config.prompt']]]));
    expect(renderEnvironmentDiffText(diff)).toContain('~ config.prompt: (sensitive value changed)');
    expect(renderEnvironmentDiffJson(diff)).not.toContain(ENV_SECRET);
    const same = diffEnvironments({ a: staging, b: staging }, { a, b: a });
    expect(renderEnvironmentDiffText(same)).toBe('The live agents of staging and staging (1 agent) are alike in every managed field.\n');
  });

  it('holds at most 64 MiB of the live values that differ, as printed, as a plan does: past it nothing is compared', () => {
    // Live prompts of 2,000,000 characters in A against one word in B: 33 agents fit, the 34th does not.
    const names = Array.from({ length: 40 }, (_, i) => `desk-${String(i).padStart(2, '0')}`);
    const state = (name: string, prefix: string) => ({ ...desiredState({ agents: names.map((agent) => desiredAgent(agent, { id: `${prefix}_${agent}`, config: { prompt: 'y' } })) }), environment: name });
    const long = 'x'.repeat(2_000_000);
    const side = (prefix: string, prompt: string) => new Map(names.map((agent) => [agent, live(`${prefix}_${agent}`, { prompt })]));
    expect(() => diffEnvironments({ a: state('staging', 's'), b: state('production', 'p') }, { a: side('s', long), b: side('p', 'short') })).toThrow(
      expect.objectContaining({ code: 'diff_too_large', message: expect.stringContaining('agent.desk-33, the live values that differ between the two environments come to more than 64 MiB') }),
    );
  });
});
