/**
 * Which model the emulator plays agents with, from the flags and the environment. A module of its
 * own: `--local` reads it for the embedded emulator of every command, and the `emulator` command's
 * module would bring the traffic profiles and the YAML library along with it, which no `--local` command needs.
 */
import { VoxformError } from '../errors.js';
import type { EmulatorOptions } from '../emulator/index.js';

/** A bad value of one of the `emulator` command's flags. */
export function invalidEmulatorOption(flag: string, message: string): VoxformError {
  return new VoxformError('invalid_option', `${flag} ${message}`, { hint: 'See `voxform emulator --help`.' });
}

/**
 * The model the emulator plays agents with: `--llm URL` (else VOXFORM_EMULATOR_LLM), `--llm-model`
 * (else VOXFORM_EMULATOR_LLM_MODEL), the key from VOXFORM_EMULATOR_LLM_API_KEY only.
 */
export function emulatorLlmFromEnv(
  flags: { llm?: unknown; llmModel?: unknown },
  env: Readonly<Record<string, string | undefined>>,
): EmulatorOptions['llm'] {
  const url = (typeof flags.llm === 'string' ? flags.llm : env.VOXFORM_EMULATOR_LLM)?.trim();
  if (!url) return undefined;
  if (!/^https?:\/\/[^\s]+$/.test(url)) throw invalidEmulatorOption('--llm', `must be the http(s) base URL of an OpenAI-compatible API, not "${url}".`);
  const model = (typeof flags.llmModel === 'string' ? flags.llmModel : env.VOXFORM_EMULATOR_LLM_MODEL)?.trim() || undefined;
  return { url, model, apiKey: env.VOXFORM_EMULATOR_LLM_API_KEY?.trim() || undefined };
}
