/** Which model plays the emulator's agents; its own module, so `--local` does not load the `emulator` command's YAML. */
import { VoxformError } from '../errors.js';
import type { EmulatorOptions } from '../emulator/index.js';
import { headerValueFromEnv } from '../util/env-header.js';

/** A bad value of one of the `emulator` command's flags. */
export function invalidEmulatorOption(flag: string, message: string): VoxformError {
  return new VoxformError('invalid_option', `${flag} ${message}`, { hint: 'See `voxform emulator --help`.' });
}

/** `--llm` (else VOXFORM_EMULATOR_LLM), `--llm-model` (else VOXFORM_EMULATOR_LLM_MODEL), the key from the env only. */
export function emulatorLlmFromEnv(
  flags: { llm?: unknown; llmModel?: unknown },
  env: Readonly<Record<string, string | undefined>>,
): EmulatorOptions['llm'] {
  const url = (typeof flags.llm === 'string' ? flags.llm : env.VOXFORM_EMULATOR_LLM)?.trim();
  if (!url) return undefined;
  if (!/^https?:\/\/[^\s]+$/.test(url)) throw invalidEmulatorOption('--llm', `must be the http(s) base URL of an OpenAI-compatible API, not "${url}".`);
  const model = (typeof flags.llmModel === 'string' ? flags.llmModel : env.VOXFORM_EMULATOR_LLM_MODEL)?.trim() || undefined;
  return { url, model, apiKey: headerValueFromEnv(env, 'VOXFORM_EMULATOR_LLM_API_KEY') };
}
