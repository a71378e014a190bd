/**
 * Before a run: which agents the selected tests talk to (read live, their desired config built),
 * and whether the judge model is there when tests need it.
 */
import type { ApiClient } from '../api/index.js';
import { VoxformError } from '../errors.js';
import type { DesiredAgent, DesiredState } from '../manifest/types.js';
import { configurationHash, MASKED } from '../history/config-hash.js';
import { literalParts } from '../secrets/env-reference.js';
import { hashValue } from '../util/hash.js';
import { mapBounded } from '../util/semaphore.js';
import { printable } from '../util/printable.js';
import { desiredAgentConfig } from './agent-config.js';
import { sinkNewTargets } from '../secrets/sink.js';
import { placesKeptLive, trustedSecretPaths, type TrustedSecrets } from '../secrets/trusted.js';
import { withholdSecrets } from '../secrets/withhold.js';
import { ChatModel, judgeSettingsFromEnv, registerModelSecrets } from '../model/chat-model.js';
import type { AgentUnderTest, TestFile } from './types.js';
import type { AgentConfigUpdate } from '../schema/types.gen.js';
import { plural, pluralNoun } from '../util/plural.js';

/**
 * The agents the files name, each with the config `--against desired` sends. Unless `withSecrets`
 * (the operator's `--with-secrets`, for reviewed manifests): every URL the live agent does not
 * already call goes to a sink (src/secrets/sink.ts), and every secret — at the schema's places, the
 * manifests' `${env:…}` places, and the places trusted evidence says hold one live
 * (src/secrets/trusted.ts), a live value the manifests no longer set included — is withheld
 * (src/secrets/withhold.ts). Every agent's live values are told to `trusted` before anything runs,
 * so no report prints what `${env:…}` put on the service.
 */
export async function resolveAgentsUnderTest(
  files: readonly TestFile[],
  desired: DesiredState,
  client: ApiClient,
  parallelism: number,
  options: { withSecrets?: boolean; trusted: TrustedSecrets },
): Promise<Map<string, AgentUnderTest>> {
  const names = [...new Set(files.map((file) => file.agent))];
  const agents = await mapBounded(names, parallelism, async (name): Promise<[string, AgentUnderTest]> => {
    const agent = desired.agents.get(name);
    if (!agent) throw new Error(`resolveAgentsUnderTest(): ${name} is not in the desired state`); // the loader checked
    const live = await client.getAgent(agent.id);
    options.trusted.noteLiveAgent(live);
    const liveConfig = (live.config ?? {}) as Record<string, unknown>;
    const livePlaces = options.trusted.livePaths(agent.id, liveConfig);
    const secretPaths = trustedSecretPaths(options.trusted, agent, liveConfig, livePlaces);
    const config = desiredAgentConfig(agent, live);
    const liveKey = configurationHash(liveConfig, { maskPaths: secretPaths, maskedText: (text, place) => options.trusted.maskedLiveText(agent.id, place, text, MASKED) });
    const configHashes = { desired: desiredTurnKey(agent, options.withSecrets === true), live: liveKey };
    // The schema's places and the manifests' `${env:…}` places always; a place secret by what the
    // live agent holds there only while the config sent keeps that value (the pull request set none of its own).
    const withheld = withholdSecrets(config, { sensitivePaths: [...placesKeptLive(livePlaces, config, liveConfig), ...agent.sensitivePaths], envReferences: agent.envReferences });
    if (options.withSecrets) return [name, { id: agent.id, desiredConfig: config, configHashes, sinkedTargets: [], fingerprintedConfig: withheld }];
    // Last: nothing may rewrite a URL after the sink has replaced it.
    const sinked = sinkNewTargets(withheld, config, liveConfig);
    return [name, { id: agent.id, desiredConfig: sinked.config, configHashes, sinkedTargets: sinked.replaced }];
  });
  return new Map(agents);
}

/**
 * What keys an agent turn of `--against desired` (src/conversations/recordings/), so a recording is
 * replayed exactly while the agent's manifest is unchanged: the manifests' configuration hash
 * (src/history/config-hash.ts, its secrets masked: a text written with `${env:…}` as written, each
 * reference masked, so an edit around it is seen, the value never), and whether that configuration
 * was sent with its secrets (`--with-secrets`: real tokens and URLs, no sink), which changes what
 * the agent answers. A run without them keeps the manifests' hash alone.
 */
function desiredTurnKey(agent: DesiredAgent, withSecrets: boolean): string {
  const written = agent.envReferences ?? {};
  const maskedText = (_text: string, path: string): string | undefined => {
    const text = Object.hasOwn(written, `config.${path}`) ? written[`config.${path}`] : undefined;
    return text === undefined ? undefined : literalParts(text).join(MASKED);
  };
  const hash = configurationHash(agent.config, { maskPaths: agent.sensitivePaths, maskedText });
  return withSecrets ? hashValue({ config: hash, sent: 'with secrets' }) : hash;
}

/**
 * The agents of a run that replays `--against desired` only: read from nothing but the manifests
 * (the recording answers every request, so nothing is sent and no live config is needed).
 */
export function agentsFromManifests(files: readonly TestFile[], desired: DesiredState, withSecrets: boolean): Map<string, AgentUnderTest> {
  const agents = new Map<string, AgentUnderTest>();
  for (const name of new Set(files.map((file) => file.agent))) {
    const agent = desired.agents.get(name);
    if (!agent) throw new Error(`agentsFromManifests(): ${name} is not in the desired state`); // the loader checked
    // The manifests' config stands for what would be sent (mock_tools: names its tools); it is never sent.
    agents.set(name, { id: agent.id, desiredConfig: agent.config as AgentConfigUpdate, configHashes: { desired: desiredTurnKey(agent, withSecrets) } });
  }
  return agents;
}

/**
 * The judge for tests that need one (`judge:` checks, simulated callers): from VOXFORM_JUDGE_URL,
 * VOXFORM_JUDGE_MODEL and VOXFORM_JUDGE_API_KEY only. Missing while needed is an error unless the
 * operator chose `--skip-judge`; the key and the URL's tokens are handed to `onSecret` before anything is printed.
 * `timeoutMs` is how long the judge has to answer one request (`--timeout`, as the service has).
 */
export function chooseJudge(
  files: readonly TestFile[],
  env: Readonly<Record<string, string | undefined>>,
  options: { skipJudge: boolean; onSecret: (value: string) => void; timeoutMs: number },
): ChatModel | undefined {
  if (options.skipJudge) return undefined;
  // Names from test files: shown escaped in the error (a name could hold a terminal escape sequence).
  const needing = files.flatMap((file) => file.tests.filter((test) => test.needsModel).map((test) => printable(`${file.display} › ${test.name}`)));
  if (needing.length === 0) return undefined;
  const settings = judgeSettingsFromEnv(env);
  if (!settings) {
    throw new VoxformError('judge_missing', `${plural(needing.length, 'test')} ${pluralNoun(needing.length, 'needs', 'need')} a judge model (judge: checks or a simulated caller), and none is configured; first: ${needing[0]}.`, {
      hint: 'Set VOXFORM_JUDGE_URL (an OpenAI-compatible API), VOXFORM_JUDGE_MODEL and VOXFORM_JUDGE_API_KEY, or run with --skip-judge to report those checks as skipped.',
    });
  }
  registerModelSecrets(settings, options.onSecret);
  return new ChatModel({ ...settings, timeoutMs: options.timeoutMs, timeoutSetting: '--timeout (or VOXFORM_TIMEOUT)' });
}

/** Only the tests of the named agents (`--agent`), files without any left out. */
export function selectAgents(files: readonly TestFile[], agents: readonly string[] | undefined, known: ReadonlySet<string>): TestFile[] {
  if (!agents || agents.length === 0) return [...files];
  for (const name of agents) {
    if (!known.has(name)) throw new VoxformError('agent_unknown', `--agent ${name}: the manifest has no agent of that name.`, { hint: `Agents: ${[...known].join(', ')}.` });
  }
  return files.filter((file) => agents.includes(file.agent));
}

/**
 * Only the tests whose name contains `grep`, ignoring case (`--grep`), files without any left out.
 * Applied before anything else looks at the tests: the judge is needed only by tests that run.
 */
export function selectTests(files: readonly TestFile[], grep: string | undefined): TestFile[] {
  if (grep === undefined) return [...files];
  const needle = grep.toLowerCase();
  return files.map((file) => ({ ...file, tests: file.tests.filter((test) => test.name.toLowerCase().includes(needle)) })).filter((file) => file.tests.length > 0);
}
