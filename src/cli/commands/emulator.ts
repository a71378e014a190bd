/** `voxform emulator`: runs the local service until Ctrl-C or SIGTERM; request lines go to stderr. */
import path from 'node:path';
import { startEmulator, type EmulatorOptions } from '../../emulator/index.js';
import { MAX_FAULT_DELAY_MS } from '../../emulator/faults.js';
import type { CommandContext } from '../context.js';
import { VoxformError } from '../../errors.js';
import { emulatorLlmFromEnv, invalidEmulatorOption as invalid } from '../emulator-llm.js';
import { invalidProfile, tooManyForDataFile, tooManyForRun, trafficRequest } from '../traffic-request.js';
import { MAX_TRAFFIC_CALLS, TrafficOverDataFileError, TrafficOverRunError, TrafficProfileError } from '../../emulator/traffic/index.js';
import type { TrafficOptions } from '../../emulator/index.js';
import { formatCount } from '../../util/plural.js';
import { nextCommand, ownFlags } from '../next-command.js';
import { registerModelSecrets } from '../../model/chat-model.js';
import { LISTEN_PORT, wholeNumber } from '../whole-number.js';

interface EmulatorCommandOptions {
  port?: string | number;
  host?: string;
  data?: string;
  seed?: string;
  latency?: string;
  failRate?: string;
  llm?: string;
  llmModel?: string;
  traffic?: string;
  trafficCalls?: number;
  trafficSeed?: string;
}

/** Where it listens unless told otherwise (program.ts gives the same defaults). */
const DEFAULT_PORT = '4010';
const DEFAULT_HOST = '127.0.0.1';

/** Turns the command's flags into emulator options; throws a VoxformError naming the bad flag. */
export function parseEmulatorFlags(options: EmulatorCommandOptions, cwd: string): EmulatorOptions {
  const result: EmulatorOptions = {};
  const port = options.port ?? DEFAULT_PORT;
  result.port = wholeNumber('--port', String(port), LISTEN_PORT);
  const host = options.host ?? DEFAULT_HOST;
  if (typeof host !== 'string' || host.trim() === '') throw invalid('--host', 'must be an address such as 127.0.0.1.');
  result.host = host;
  if (options.data !== undefined) result.dataFile = path.resolve(cwd, String(options.data));
  if (options.seed !== undefined) result.seed = path.resolve(cwd, String(options.seed));
  if (options.latency !== undefined) {
    const text = String(options.latency).trim();
    const range = /^(\d+(?:\.\d+)?)\s*-\s*(\d+(?:\.\d+)?)$/.exec(text);
    if (range) {
      const min = Number(range[1]);
      const max = Number(range[2]);
      if (max < min) throw invalid('--latency', `range must be MIN-MAX with MIN ≤ MAX.`);
      result.latencyMs = [min, max];
    } else if (/^\d+(?:\.\d+)?$/.test(text)) {
      result.latencyMs = Number(text);
    } else {
      throw invalid('--latency', `must be milliseconds (e.g. 20) or a range MIN-MAX (e.g. 10-50).`);
    }
    const longest = Array.isArray(result.latencyMs) ? result.latencyMs[1] : result.latencyMs;
    if (longest > MAX_FAULT_DELAY_MS) throw invalid('--latency', `must be at most ${MAX_FAULT_DELAY_MS} ms (about 24 days).`);
  }
  if (options.failRate !== undefined) {
    const text = String(options.failRate).trim();
    const rate = /^\d*(?:\.\d+)?$/.test(text) && text !== '' ? Number(text) : Number.NaN;
    if (!(rate >= 0 && rate <= 1)) throw invalid('--fail-rate', `must be a fraction from 0 to 1 (e.g. 0.1 for 10 %).`);
    result.failRate = rate;
  }
  return result;
}

/** The traffic the flags ask for at start, checked before anything starts; undefined without --traffic. */
async function startupTraffic(options: EmulatorCommandOptions, cwd: string): Promise<TrafficOptions | undefined> {
  if (options.traffic === undefined) {
    if (options.trafficCalls !== undefined || options.trafficSeed !== undefined) throw invalid('--traffic-calls and --traffic-seed', 'go with --traffic PROFILE.');
    return undefined;
  }
  return trafficRequest({ profile: options.traffic, calls: options.trafficCalls, seed: options.trafficSeed }, cwd);
}

/** Runs the emulator until `stop` resolves, then shuts it down (split from `run` so tests need no signal). */
export async function runEmulator(options: EmulatorCommandOptions, ctx: CommandContext, stop: Promise<unknown>): Promise<number> {
  const emulatorOptions = parseEmulatorFlags(options, ctx.cwd);
  const traffic = await startupTraffic(options, ctx.cwd);
  const llm = emulatorLlmFromEnv(options, ctx.env);
  if (llm) {
    registerModelSecrets(llm, (secret) => ctx.secrets.add(secret));
    emulatorOptions.llm = llm;
  }
  const emulator = await startEmulator({ ...emulatorOptions, quiet: false, log: (line) => ctx.stderr.write(`${line}\n`) });
  const shutdown = emulator.close.bind(emulator);
  ctx.onExit(shutdown);
  let trafficLine: string[] = [];
  if (traffic) {
    try {
      const summary = await emulator.control.traffic(traffic);
      if (summary.agents.length === 0 && summary.skipped.length === 0) {
        // As `emulator traffic` says (emulator_no_agents), but the emulator still serves: a warning, not an error.
        trafficLine = ['  traffic      none added: the account has no agents'];
        ctx.stderr.write(
          `warning: --traffic added no call: the emulator's account has no agents. Give it agents (\`voxform apply --base-url ${emulator.url}\` with its key in VOXFORM_API_KEY, or --seed FILE with agents: docs/emulator.md, "Seeds"), then add calls with \`voxform emulator traffic --url ${emulator.url}\`.\n`,
        );
      } else {
        trafficLine = [`  traffic      ${formatCount(summary.calls)} synthetic calls added (profile ${summary.profile}, seed ${summary.seed}; docs/traffic.md)`];
      }
    } catch (error) {
      if (error instanceof TrafficOverDataFileError) {
        throw tooManyForDataFile(error, {
          run: '--traffic',
          dataFile: String(options.data),
          fix: `Ask for fewer with --traffic-calls N, or leave out --data to keep the account in memory (up to ${formatCount(MAX_TRAFFIC_CALLS)} calls a run).`,
        });
      }
      if (error instanceof TrafficOverRunError) throw tooManyForRun(error);
      if (error instanceof TrafficProfileError) throw invalidProfile(options.traffic ?? '', error.problems);
      throw error;
    }
  }

  // The operator's own VOXFORM_API_KEY is hidden from every line printed: when it is this key already, say so instead.
  const keySet = emulator.apiKey !== '' && ctx.env.VOXFORM_API_KEY?.trim() === emulator.apiKey;
  const data = emulatorOptions.dataFile ? `${emulatorOptions.dataFile} (kept between runs)` : 'in memory (use --data FILE to keep it)';
  const seed = typeof emulatorOptions.seed === 'string' ? emulatorOptions.seed : 'built-in default (the account of agents.example.yaml)';
  ctx.stdout.write(
    [
      `voxform emulator listening on ${emulator.url}`,
      // `apiKey` is only ever a key this account accepts as a private key, never a public one.
      keySet
        ? '  private key  the one VOXFORM_API_KEY holds here   (a local key, only the emulator accepts it)'
        : emulator.apiKey
        ? `  private key  ${emulator.apiKey}   (a local key, only the emulator accepts it)`
        : '  private key  (none to show: the seed or data file holds no raw private key this account accepts; seed one, or use a new --data file)',
      `  data         ${data}`,
      `  seed         ${seed}`,
      `  agents       ${llm ? `played by the model at ${llm.url}${llm.model ? ` (${llm.model})` : ''}` : 'deterministic replies (use --llm URL for a model)'}`,
      ...trafficLine,
      '',
      'Point voxform at it:',
      `  export VOXFORM_BASE_URL=${emulator.url}`,
      ...(emulator.apiKey && !keySet ? [`  export VOXFORM_API_KEY=${emulator.apiKey}`] : []),
      '',
      `Controls: ${emulator.url}/_emulator (see docs/emulator.md). Press Ctrl-C to stop.`,
      '',
    ].join('\n'),
  );

  await stop;
  ctx.stderr.write('voxform emulator: shutting down\n');
  await shutdown();
  // The shutdown flushed the data file (or failed saying why): said, as `--help` promises, so the operator knows the account is kept.
  const kept = emulatorOptions.dataFile;
  throw new VoxformError('interrupted', `voxform emulator stopped at your request${kept ? `; its data file ${kept} is flushed and holds every change` : ''}.`, {
    hint: `Run \`${startAgainCommand(options)}\` again to start it ${kept && options.data !== undefined ? 'with that account' : 'again'}.`,
  });
}

/**
 * This run's command line (nextCommand's rule): pasted, it serves what this one served, where it
 * listened (the URL the banner told clients to use). `--traffic` is left out: at start it adds its
 * calls, so again it would add them a second time to the account --data kept.
 */
function startAgainCommand(options: EmulatorCommandOptions): string {
  const typed = (value: string | number | undefined) => (value === undefined ? undefined : String(value));
  const own = ownFlags([
    ['--port', String(options.port) === DEFAULT_PORT ? undefined : typed(options.port)],
    ['--host', options.host === DEFAULT_HOST ? undefined : options.host],
    ['--data', options.data],
    ['--seed', options.seed],
    ['--latency', options.latency],
    ['--fail-rate', options.failRate],
    ['--llm', options.llm],
    ['--llm-model', options.llmModel],
  ]);
  return nextCommand(['emulator', ...own].join(' '), {});
}

export async function run(options: EmulatorCommandOptions, ctx: CommandContext): Promise<number> {
  return runEmulator(options, ctx, ctx.interrupted());
}
