/**
 * A manifest reads only the environment variables the operator allows: never VOXFORM_* (the API
 * key among them), and, when VOXFORM_ENV_ALLOW is set, only the names and PREFIX_* patterns it
 * lists. A refused reference is an error naming the variable, and its value is never read — checked
 * by handing the loader an environment that records every name looked up.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { envPolicyOf } from '../../src/secrets/env-policy.js';
import { isVoxformError } from '../../src/errors.js';
import { loadTree, summarize, watchedEnv } from '../manifest/helpers.js';
import { startExampleProject, type ExampleProject } from '../helpers/project.js';

const PLANTED = { VOXFORM_API_KEY: 'vx-key-planted-5c1d', AWS_SECRET_ACCESS_KEY: 'aws-planted-8e7f', HOOK_TOKEN: 'hook-planted-1a2b' };

function webhookManifest(headerValue: string): string {
  return `agents:
  a:
    id: ag_1
    config:
      session_data_webhook:
        url: https://hooks.example.com/end
        headers: { x-token: "${headerValue}" }
`;
}

describe('${env:VOXFORM_API_KEY} and other VOXFORM_* variables', () => {
  it.each(['VOXFORM_API_KEY', 'VOXFORM_JUDGE_API_KEY', 'VOXFORM_STATE'])('refuses ${env:%s}, even when VOXFORM_ENV_ALLOW lists it, and never reads it', async (name) => {
    const { env, looked } = watchedEnv({ ...PLANTED, [name]: 'planted-value', VOXFORM_ENV_ALLOW: `${name},VOXFORM_*` });
    const result = await loadTree({ 'voxform.yaml': webhookManifest(`Bearer \${env:${name}}`) }, { env });
    expect(summarize(result)).toEqual([
      `voxform.yaml:7:37 env_not_allowed \${env:${name}} is refused: VOXFORM_* variables are voxform's own settings (the service key among them) and a manifest never reads them; remove the reference`,
    ]);
    expect(looked.has(name)).toBe(false);
    expect(result.secrets).toEqual([]);
  });
});

describe('a VOXFORM_* variable named in another letter case', () => {
  it.each(['voxform_api_key', 'Voxform_Api_Key'])('refuses ${env:%s}: on Windows it is VOXFORM_API_KEY, and it is never read', async (name) => {
    const looked = new Set<string>();
    // The environment as Node gives it on Windows: a variable is found whatever the case of its name.
    const env = new Proxy({ ...PLANTED } as Record<string, string | undefined>, {
      get(target, key) {
        if (typeof key !== 'string') return undefined;
        looked.add(key.toUpperCase());
        return Object.entries(target).find(([written]) => written.toUpperCase() === key.toUpperCase())?.[1];
      },
    });
    const result = await loadTree({ 'voxform.yaml': webhookManifest(`Bearer \${env:${name}}`) }, { env });
    expect(summarize(result)).toEqual([
      `voxform.yaml:7:37 env_not_allowed \${env:${name}} is refused: VOXFORM_* variables are voxform's own settings (the service key among them) and a manifest never reads them; remove the reference`,
    ]);
    expect(looked.has('VOXFORM_API_KEY')).toBe(false);
    expect(result.secrets).toEqual([]);
  });
});

describe('VOXFORM_ENV_ALLOW', () => {
  it('refuses a variable outside the list, naming it, without reading it (a fallback does not help)', async () => {
    const { env, looked } = watchedEnv({ ...PLANTED, VOXFORM_ENV_ALLOW: 'HOOK_TOKEN' });
    const result = await loadTree({ 'voxform.yaml': webhookManifest('${env:AWS_SECRET_ACCESS_KEY:-x}') }, { env });
    expect(summarize(result)).toEqual([
      'voxform.yaml:7:30 env_not_allowed ${env:AWS_SECRET_ACCESS_KEY} is refused: AWS_SECRET_ACCESS_KEY is not in VOXFORM_ENV_ALLOW, so the manifest may not read it; ' +
        'remove the reference, or (as the operator) add AWS_SECRET_ACCESS_KEY to VOXFORM_ENV_ALLOW',
    ]);
    expect(looked.has('AWS_SECRET_ACCESS_KEY')).toBe(false);
  });

  it.each([
    { allow: 'HOOK_TOKEN', name: 'HOOK_TOKEN', allowed: true },
    { allow: ' OTHER , HOOK_TOKEN ,', name: 'HOOK_TOKEN', allowed: true },
    { allow: 'HOOK_*', name: 'HOOK_TOKEN', allowed: true },
    { allow: 'HOOK_*', name: 'HOOKTOKEN', allowed: false },
    { allow: 'HOOK_TOKEN', name: 'HOOK_TOKEN_2', allowed: false },
    { allow: 'hook_token', name: 'HOOK_TOKEN', allowed: false },
    { allow: '', name: 'HOOK_TOKEN', allowed: false },
  ])('$allow allows $name: $allowed', async ({ allow, name, allowed }) => {
    const { env, looked } = watchedEnv({ [name]: 'value-1', VOXFORM_ENV_ALLOW: allow });
    const result = await loadTree({ 'voxform.yaml': webhookManifest(`\${env:${name}}`) }, { env });
    expect(result.diagnostics.map((d) => d.code)).toEqual(allowed ? [] : ['env_not_allowed']);
    expect(looked.has(name)).toBe(allowed);
  });

  it('unset, allows every variable but VOXFORM_*', async () => {
    const result = await loadTree({ 'voxform.yaml': webhookManifest('${env:AWS_SECRET_ACCESS_KEY}') }, { env: PLANTED });
    expect(summarize(result)).toEqual([]);
    expect(result.state?.environmentVariables).toEqual(['AWS_SECRET_ACCESS_KEY']);
  });

  it.each(['HOOK-TOKEN', '*', 'HOOK_*_X', '1ABC'])('stops the run on a malformed entry (%s)', (entry) => {
    let error: unknown;
    try {
      envPolicyOf({ VOXFORM_ENV_ALLOW: `HOOK_TOKEN,${entry}` });
    } catch (caught) {
      error = caught;
    }
    expect(isVoxformError(error) && error.code).toBe('env_allow_invalid');
    expect((error as Error).message).toContain(`"${entry}"`);
  });

  it('applies to references in templates and in the environment overlay in use', async () => {
    const template = `description: t
variables: {}
agent:
  config:
    session_data_webhook: { url: https://hooks.example.com/t, headers: { x-t: "\${env:AWS_SECRET_ACCESS_KEY}" } }
`;
    const manifest = `agents:
  a: { id: ag_1, template: leaky }
  b: { id: ag_2 }
environments:
  prod:
    agents:
      b: { config: { first_message: "\${env:GITHUB_TOKEN}" } }
`;
    const { env, looked } = watchedEnv({ ...PLANTED, GITHUB_TOKEN: 'gh-planted', VOXFORM_ENV_ALLOW: 'HOOK_TOKEN' });
    const result = await loadTree({ 'voxform.yaml': manifest, 'templates/leaky/template.yaml': template }, { env, templatesDir: 'templates', environment: 'prod' });
    expect(result.diagnostics.map((d) => `${d.file}:${d.line} ${d.code}`)).toEqual(['voxform.yaml:7 env_not_allowed', 'templates/leaky/template.yaml:5 env_not_allowed']);
    expect(looked.has('AWS_SECRET_ACCESS_KEY')).toBe(false);
    expect(looked.has('GITHUB_TOKEN')).toBe(false);
  });
});

describe('exfiltration through a webhook header, end to end', () => {
  let project: ExampleProject | undefined;
  afterEach(async () => {
    await project?.close();
    project = undefined;
  });

  it.each([
    { variable: 'VOXFORM_API_KEY', allow: undefined },
    { variable: 'AWS_SECRET_ACCESS_KEY', allow: 'HOOK_TOKEN,CALENDAR_TOKEN,TWILIO_*,OPENAI_API_KEY' },
  ])('apply refuses ${env:$variable} and changes nothing, the value in no request (VOXFORM_ENV_ALLOW=$allow)', async ({ variable, allow }) => {
    project = await startExampleProject();
    const manifest = path.join(project.dir, 'voxform.yaml');
    const text = await readFile(manifest, 'utf8');
    await writeFile(manifest, text.replace('${env:HOOK_TOKEN:-local-dev-token}', `\${env:${variable}}`));
    const planted = 'planted-cloud-secret-3d4c';
    const extra: Record<string, string> = { AWS_SECRET_ACCESS_KEY: planted, ...(allow === undefined ? {} : { VOXFORM_ENV_ALLOW: allow }) };
    const result = await project.cliInProcess(['apply', '--auto-approve'], extra);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`\${env:${variable}} is refused`);
    // The manifests fail to load before any request (docs/plan.md, "The operation, in order"):
    // nothing was written, and no request carries the value.
    expect(project.requests.filter((request) => request.method !== 'GET')).toEqual([]);
    expect(JSON.stringify(project.requests)).not.toContain(planted);
    for (const output of [result.stdout, result.stderr]) {
      expect(output).not.toContain(planted);
      expect(output).not.toContain(project.emulator.apiKey);
    }
  });
});

describe('short ${env:} values', () => {
  it('warn at the reference that every occurrence will be hidden, and still count as secrets', async () => {
    const files = { 'voxform.yaml': 'agents:\n  a:\n    id: ag_1\n    config: { first_message: "Code ${env:CODE}" }\n' };
    const short = await loadTree(files, { env: { CODE: 'eu' } });
    expect(short.diagnostics.map((d) => `${d.line}:${d.col} ${d.severity} ${d.code}`)).toEqual(['4:36 warning env_value_short']);
    expect(short.secrets).toContain('eu');
    expect(summarize(await loadTree(files, { env: { CODE: 'long-enough' } }))).toEqual([]);
  });

  it('say nothing of a short `:-` fallback: it is text the manifest writes, never searched for at any length', async () => {
    const files = { 'voxform.yaml': 'agents:\n  a:\n    id: ag_1\n    config: { first_message: "Region ${env:REGION:-us}" }\n' };
    const fallback = await loadTree(files, { env: {} });
    expect(summarize(fallback)).toEqual([]);
    expect(fallback.secrets).not.toContain('us');
  });

  it('say that a value that is not secret needs no ${env:…}: written as it is, in a header too, it loads without a word', async () => {
    const header = (value: string) => ({ 'voxform.yaml': webhookManifest('').replace('x-token: ""', `x-env: ${value}`) });
    const short = await loadTree(header('"${env:X_ENV}"'), { env: { X_ENV: 'prod' } });
    expect(short.diagnostics.map((d) => d.message)).toEqual([
      "the value of X_ENV is under 6 characters, too short to search for in output without garbling ordinary words: it is hidden where it stands as a value (its config paths, headers), not wherever it occurs in text such as a reply; if it is not secret, it needs no ${env:…}: write it in the manifest as it is, in a header or a URL's query too (x-env: prod; the built-in policy asks for ${env:…} only where a header or query parameter names a credential, such as authorization or ?token=), or under environments: where it differs per environment; if it is secret, make it longer",
    ]);
    expect(summarize(await loadTree(header('prod')))).toEqual([]);
  });
});
