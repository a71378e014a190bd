/** Which model plays the emulator's agents; its own module, so `--local` does not load the `emulator` command's YAML. */
import { VoxformError } from '../errors.js';
import type { EmulatorOptions } from '../emulator/index.js';
import { headerValueFromEnv } from '../util/env-header.js';
import { httpUrl } from '../util/http-url.js';

/** A bad value of one of the `emulator` command's flags. */
export function invalidEmulatorOption(flag: string, message: string): VoxformError {
  return new VoxformError('invalid_option', `${flag} ${message}`, { hint: 'See `voxform emulator --help`.' });
}

/** `--llm` (else VOXFORM_EMULATOR_LLM), `--llm-model` (else VOXFORM_EMULATOR_LLM_MODEL), the key from the env only. */
export function emulatorLlmFromEnv(
  flags: { llm?: unknown; llmModel?: unknown },
  env: Readonly<Record<string, string | undefined>>,
): EmulatorOptions['llm'] {
  const fromFlag = typeof flags.llm === 'string';
  const url = (fromFlag ? (flags.llm as string) : env.VOXFORM_EMULATOR_LLM)?.trim();
  if (!url) return undefined;
  // Parsed whole, as the model client parses it; a user or password is the client's to refuse, in its words.
  if (httpUrl(url, { credentials: 'allow' }) === undefined) {
    const problem = `must be the http(s) base URL of an OpenAI-compatible API.`;
    // The error names where the value came from: a user who never typed --llm looks for the variable.
    if (fromFlag) throw invalidEmulatorOption('--llm', problem);
    throw new VoxformError('model_url_invalid', `VOXFORM_EMULATOR_LLM ${problem}`, {
      hint: 'Set VOXFORM_EMULATOR_LLM to one, such as http://127.0.0.1:11434/v1, or unset it for the deterministic reply.',
    });
  }
  const model = (typeof flags.llmModel === 'string' ? flags.llmModel : env.VOXFORM_EMULATOR_LLM_MODEL)?.trim() || undefined;
  return { url, model, apiKey: headerValueFromEnv(env, 'VOXFORM_EMULATOR_LLM_API_KEY') };
}

