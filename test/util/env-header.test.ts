/**
 * A key or token from the environment with a character a header cannot carry (a zero-width space or
 * a line break a copy brought along) is refused where it is read, naming the variable, the character
 * and its place, never the value; nothing is sent. Before, the HTTP library refused the header and
 * the error read like a network failure ("could not reach the service").
 */
import { describe, expect, it } from 'vitest';
import { connectGitHub } from '../../src/ci/github.js';
import { judgeSettingsFromEnv } from '../../src/model/chat-model.js';
import { emulatorLlmFromEnv } from '../../src/cli/emulator-llm.js';
import { headerValueFromEnv } from '../../src/util/env-header.js';
import { runCliInProcess } from '../helpers/cli.js';
import { useEmulator } from '../helpers/project.js';

const service = useEmulator();
const KEY = 'vxSecretKeyValue0123456789abcdef';

describe('headerValueFromEnv', () => {
  it('trims (a trailing line break is fine) and reads empty as unset', () => {
    expect(headerValueFromEnv({ K: ` ${KEY}\n` }, 'K')).toBe(KEY);
    expect(headerValueFromEnv({ K: ' \n' }, 'K')).toBeUndefined();
    expect(headerValueFromEnv({}, 'K')).toBeUndefined();
  });

  it.each([
    [`${KEY}\u200b`, 'character 33 is \\u200b (U+200B)'],
    [`vxSecret\nKeyValue`, 'character 9 is \\n (U+000A)'],
    [`vx\tKey`, 'character 3 is \\t (U+0009)'],
    [`vxKéy`, 'character 4 is é (U+00E9)'],
    [`😀${KEY}\u{e0041}`, 'character 1 is 😀 (U+1F600)'],
    [`${KEY}\u{e0041}`, 'character 33 is \\u{e0041} (U+E0041)'],
  ])('refuses %j: names the variable, the character and its place, never the value', (value, where) => {
    let error: unknown;
    try {
      headerValueFromEnv({ VOXFORM_API_KEY: value }, 'VOXFORM_API_KEY');
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ code: 'env_header_invalid', message: `VOXFORM_API_KEY is malformed: ${where}, which a request header cannot carry; nothing was sent.` });
    expect(JSON.stringify(error)).not.toContain('SecretKeyValue');
  });

  it('checks the judge key, the emulator model key and the CI tokens too', () => {
    const bad = `${KEY}\u200b`;
    expect(() => judgeSettingsFromEnv({ VOXFORM_JUDGE_URL: 'http://127.0.0.1:1/v1', VOXFORM_JUDGE_API_KEY: bad })).toThrow(/VOXFORM_JUDGE_API_KEY is malformed/);
    expect(() => emulatorLlmFromEnv({}, { VOXFORM_EMULATOR_LLM: 'http://127.0.0.1:1/v1', VOXFORM_EMULATOR_LLM_API_KEY: bad })).toThrow(/VOXFORM_EMULATOR_LLM_API_KEY is malformed/);
    expect(() => connectGitHub({ GITHUB_TOKEN: bad, GITHUB_REPOSITORY: 'o/r' }, (text) => text)).toThrow(/GITHUB_TOKEN is malformed/);
  });
});

describe('a malformed VOXFORM_API_KEY on the command line', () => {
  it.each(['status', 'keys create --type public', 'get agents'])('%s: env_header_invalid, exit 1, nothing sent', async (commandLine) => {
    service.emulator.control.clearRequestLog();
    const result = await runCliInProcess(commandLine.split(' '), { env: { ...service.env, VOXFORM_API_KEY: `${service.emulator.apiKey}\u200b` } });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `error[env_header_invalid]: VOXFORM_API_KEY is malformed: character ${service.emulator.apiKey.length + 1} is \\u200b (U+200B), which a request header cannot carry; nothing was sent.\n` +
        '  hint: Set VOXFORM_API_KEY again to the value alone: a copy from a web page, a chat or a document can bring an invisible character or a line break along.\n',
    );
    expect(service.emulator.control.requestLog()).toHaveLength(0);
  });
});
