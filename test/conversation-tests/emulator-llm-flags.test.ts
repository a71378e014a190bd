import { describe, expect, it } from 'vitest';
import { emulatorLlmFromEnv } from '../../src/cli/emulator-llm.js';

describe('the emulator’s model (--llm, VOXFORM_EMULATOR_LLM)', () => {
  it('takes the flag first, else the environment; the key only from the environment', () => {
    expect(emulatorLlmFromEnv({}, {})).toBeUndefined();
    expect(emulatorLlmFromEnv({}, { VOXFORM_EMULATOR_LLM: 'http://127.0.0.1:11434/v1', VOXFORM_EMULATOR_LLM_MODEL: 'llama3.1', VOXFORM_EMULATOR_LLM_API_KEY: 'k-123456' })).toEqual({
      url: 'http://127.0.0.1:11434/v1',
      model: 'llama3.1',
      apiKey: 'k-123456',
    });
    expect(emulatorLlmFromEnv({ llm: 'http://127.0.0.1:9/v1', llmModel: 'm' }, { VOXFORM_EMULATOR_LLM: 'http://other/v1' })).toEqual({ url: 'http://127.0.0.1:9/v1', model: 'm', apiKey: undefined });
  });

  it('refuses what is not an http(s) URL, naming the flag', () => {
    expect(() => emulatorLlmFromEnv({ llm: 'file:///etc/passwd' }, {})).toThrow('--llm must be the http(s) base URL of an OpenAI-compatible API.');
  });

  it('names VOXFORM_EMULATOR_LLM, not a flag never given, when the variable is not a URL', () => {
    expect(() => emulatorLlmFromEnv({}, { VOXFORM_EMULATOR_LLM: 'xx' })).toThrow(
      expect.objectContaining({
        code: 'model_url_invalid',
        message: 'VOXFORM_EMULATOR_LLM must be the http(s) base URL of an OpenAI-compatible API.',
        hint: 'Set VOXFORM_EMULATOR_LLM to one, such as http://127.0.0.1:11434/v1, or unset it for the deterministic reply.',
      }),
    );
  });
});
