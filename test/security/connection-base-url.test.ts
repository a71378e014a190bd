/**
 * The API key goes only where the operator says: an official gateway, or an origin named by
 * --base-url, VOXFORM_BASE_URL or VOXFORM_TRUSTED_ORIGINS. A manifest (written by whoever opened the
 * pull request) cannot redirect it: its base_url is refused unless the operator trusts that origin,
 * and the operator's base URL and region always beat the manifest's.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { chooseBaseUrl } from '../../src/cli/connection.js';
import { isVoxformError } from '../../src/errors.js';
import { loadTree, summarize } from '../manifest/helpers.js';
import { startExampleProject, type ExampleProject } from '../helpers/project.js';

/** A loopback server standing for an attacker's host: it records every request it receives. */
interface Attacker {
  url: string;
  received: Array<{ method: string; path: string; authorization: string | undefined }>;
  close(): Promise<void>;
}

async function startAttacker(): Promise<Attacker> {
  const received: Attacker['received'] = [];
  const server: Server = createServer((req, res) => {
    received.push({ method: req.method ?? '', path: req.url ?? '', authorization: req.headers.authorization });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

let project: ExampleProject | undefined;
let attacker: Attacker | undefined;
afterEach(async () => {
  await project?.close();
  await attacker?.close();
  project = undefined;
  attacker = undefined;
});

/** The example project with `base_url` (and nothing else) added at the top of its manifest. */
async function projectWithBaseUrl(baseUrl: string): Promise<ExampleProject> {
  project = await startExampleProject();
  const manifest = path.join(project.dir, 'voxform.yaml');
  await writeFile(manifest, `base_url: ${baseUrl}\n${await readFile(manifest, 'utf8')}`);
  return project;
}

describe('exfiltration: a manifest base_url naming another host', () => {
  it('sends nothing to it when VOXFORM_BASE_URL names the service: plan and apply stop with base_url_untrusted', async () => {
    attacker = await startAttacker();
    const p = await projectWithBaseUrl(attacker.url);
    for (const args of [['plan'], ['apply', '--auto-approve'], ['validate']]) {
      const result = await p.cliInProcess(args);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr).toMatch(/^voxform\.yaml:1:11  error\[base_url_untrusted\]: base_url names http:\/\/127\.0\.0\.1:\d+, an origin the operator has not trusted with the API key/m);
      expect(result.stderr).toContain('VOXFORM_TRUSTED_ORIGINS');
    }
    expect(attacker.received).toEqual([]);
    expect(p.requests).toEqual([]);
  });

  it('sends nothing to it even once trusted, while the operator names another service: the environment beats the manifest', async () => {
    attacker = await startAttacker();
    const p = await projectWithBaseUrl(attacker.url);
    const result = await p.cliInProcess(['plan'], { VOXFORM_TRUSTED_ORIGINS: attacker.url });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(attacker.received).toEqual([]);
    expect(p.requests.some((request) => request.path.startsWith('/agents/'))).toBe(true);
  });

  it('sends nothing to it from any command that reads the manifests, once trusted, while the operator names another service', async () => {
    attacker = await startAttacker();
    const p = await projectWithBaseUrl(attacker.url);
    const commands = [['plan'], ['test', 'example/tests', '--skip-judge'], ['test', 'capture', 'call_unknown'], ['logs'], ['export', '--agent', '-OKdqbqetEcM4ak369ym', '--out', 'exported']];
    for (const args of commands) await p.cliInProcess(args, { VOXFORM_TRUSTED_ORIGINS: attacker.url });
    expect(attacker.received).toEqual([]);
  });

  it('is used only when the operator trusts its origin and names no service of its own', async () => {
    const p = await projectWithBaseUrl('http://127.0.0.1:1'); // replaced below: the proxy's port is known only now
    const manifest = path.join(p.dir, 'voxform.yaml');
    await writeFile(manifest, (await readFile(manifest, 'utf8')).replace('http://127.0.0.1:1', p.url));
    const withoutBaseUrl = { VOXFORM_BASE_URL: undefined };

    const refused = await p.cliInProcess(['plan'], withoutBaseUrl);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('base_url names');
    expect(p.requests).toEqual([]);

    const trusted = await p.cliInProcess(['plan'], { ...withoutBaseUrl, VOXFORM_TRUSTED_ORIGINS: `https://proxy.example.com, ${p.url}/` });
    expect(trusted.stderr).toBe('');
    expect(trusted.code).toBe(0);
    expect(p.requests.some((request) => request.path.startsWith('/agents/'))).toBe(true);
  });

  it('trusts the origin of --base-url as it trusts VOXFORM_BASE_URL, in every command that reads the manifests and takes the flag', async () => {
    const p = await projectWithBaseUrl('http://127.0.0.1:1'); // replaced below: the proxy's port is known only now
    const manifest = path.join(p.dir, 'voxform.yaml');
    await writeFile(manifest, (await readFile(manifest, 'utf8')).replace('http://127.0.0.1:1', p.url));
    const flagOnly = { VOXFORM_BASE_URL: undefined };
    for (const args of [['plan'], ['status'], ['history'], ['logs', '--agent', 'front-desk'], ['report', '--agent', 'front-desk']]) {
      const result = await p.cliInProcess([...args, '--base-url', p.url], flagOnly);
      expect(result.stderr, args.join(' ')).not.toContain('base_url');
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
    }
    // logs and report took the manifest's name for its agent: the service was asked for that id's calls.
    const callLogReads = p.requests.filter((request) => request.path.includes('agent_id='));
    expect(callLogReads.length).toBeGreaterThanOrEqual(2);
    for (const request of callLogReads) expect(request.path).toContain('agent_id=-OKdqbqetEcM4ak369ym');
  });

  it("validate, which connects to nothing and takes no --base-url, trusts VOXFORM_BASE_URL's origin, and its error names only what it takes", async () => {
    const p = await projectWithBaseUrl('http://127.0.0.1:1'); // replaced below: the proxy's port is known only now
    const manifest = path.join(p.dir, 'voxform.yaml');
    await writeFile(manifest, (await readFile(manifest, 'utf8')).replace('http://127.0.0.1:1', p.url));
    const untrusted = await p.cliInProcess(['validate'], { VOXFORM_BASE_URL: undefined });
    expect(untrusted.code).toBe(1);
    expect(untrusted.stderr).toContain("an origin named by VOXFORM_BASE_URL, VOXFORM_TRUSTED_ORIGINS or a command's --base-url");
    expect((await p.cliInProcess(['validate', '--base-url', p.url], { VOXFORM_BASE_URL: undefined })).stderr).toContain('has no option --base-url');
    const trusted = await p.cliInProcess(['validate'], { VOXFORM_BASE_URL: p.url });
    expect(trusted.stderr).not.toContain('base_url');
    expect(trusted.code).toBe(0);
    expect((await p.cliInProcess(['validate', '--help'], {})).stdout).toMatch(/^ {2}VOXFORM_BASE_URL +the service base URL/m);
  });

  it('names the service for logs, report and history as for apply, when the operator names none', async () => {
    const p = await projectWithBaseUrl('http://127.0.0.1:1'); // replaced below: the proxy's port is known only now
    const manifest = path.join(p.dir, 'voxform.yaml');
    await writeFile(manifest, (await readFile(manifest, 'utf8')).replace('http://127.0.0.1:1', p.url));
    const manifestDecides = { VOXFORM_BASE_URL: undefined, VOXFORM_TRUSTED_ORIGINS: p.url };
    expect((await p.cliInProcess(['apply', '--auto-approve'], manifestDecides)).code).toBe(0);
    for (const args of [['logs'], ['report']]) {
      const before = p.requests.length;
      const result = await p.cliInProcess(args, manifestDecides);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      expect(p.requests.slice(before).some((request) => request.path.startsWith('/call-logs'))).toBe(true);
    }
    const history = await p.cliInProcess(['history'], manifestDecides);
    expect(history.code, history.stderr).toBe(0);
    expect(history.stdout).toContain(`History of default@${p.url}, newest first:`);
  });

  it('a malformed VOXFORM_TRUSTED_ORIGINS stops every command that reads the manifests with a clear error', async () => {
    const p = await projectWithBaseUrl('https://api-west.millis.ai');
    for (const args of [['validate'], ['history'], ['logs'], ['report']]) {
      const result = await p.cliInProcess(args, { VOXFORM_TRUSTED_ORIGINS: 'https://proxy.example.com/voice' });
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr).toContain('VOXFORM_TRUSTED_ORIGINS: its entry 1 of 1 is not an origin: it has a path.');
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
  });
});

describe('chooseBaseUrl: the operator beats the manifest', () => {
  const manifestProxy = 'https://proxy.example.com/voice';
  it.each([
    { name: '--base-url first', flags: { baseUrl: 'http://127.0.0.1:4010/' }, env: { VOXFORM_BASE_URL: 'http://127.0.0.1:4020', VOXFORM_REGION: 'eu' }, manifest: { baseUrl: manifestProxy }, expected: 'http://127.0.0.1:4010' },
    { name: 'VOXFORM_BASE_URL beats the manifest', flags: {}, env: { VOXFORM_BASE_URL: 'http://127.0.0.1:4020' }, manifest: { baseUrl: manifestProxy, region: 'eu' }, expected: 'http://127.0.0.1:4020' },
    { name: '--region beats the manifest base_url', flags: { region: 'eu' }, env: {}, manifest: { baseUrl: manifestProxy }, expected: 'https://api-eu-west.millis.ai' },
    { name: 'VOXFORM_REGION beats the manifest base_url', flags: {}, env: { VOXFORM_REGION: 'US' }, manifest: { baseUrl: manifestProxy, region: 'eu' }, expected: 'https://api-west.millis.ai' },
    { name: 'the manifest base_url on a trusted origin', flags: {}, env: { VOXFORM_TRUSTED_ORIGINS: 'https://proxy.example.com' }, manifest: { baseUrl: manifestProxy }, expected: manifestProxy },
    { name: 'the manifest base_url on a gateway', flags: {}, env: {}, manifest: { baseUrl: 'https://api-eu-west.millis.ai/' }, expected: 'https://api-eu-west.millis.ai' },
    { name: 'the manifest region', flags: {}, env: {}, manifest: { region: 'eu' }, expected: 'https://api-eu-west.millis.ai' },
    { name: 'us by default', flags: {}, env: {}, manifest: {}, expected: 'https://api-west.millis.ai' },
  ])('$name', ({ flags, env, manifest, expected }) => {
    expect(chooseBaseUrl(flags, env, manifest)).toBe(expected);
  });

  it.each([
    ['another host', 'https://evil.example.com'],
    ['a gateway over plain http', 'http://api-west.millis.ai'],
    ['a gateway on another port', 'https://api-west.millis.ai:8443'],
  ])('refuses a manifest base_url on %s, even when the loader was bypassed', (_, baseUrl) => {
    let error: unknown;
    try {
      chooseBaseUrl({}, { VOXFORM_TRUSTED_ORIGINS: 'https://proxy.example.com' }, { baseUrl });
    } catch (caught) {
      error = caught;
    }
    expect(isVoxformError(error) && error.code).toBe('base_url_untrusted');
  });
});

describe('proxy variables', () => {
  it('are not read: a proxy the environment names gets no request, and the run goes to the service directly', async () => {
    attacker = await startAttacker();
    const p = await startExampleProject();
    project = p;
    const proxies = { HTTP_PROXY: attacker.url, HTTPS_PROXY: attacker.url, http_proxy: attacker.url, https_proxy: attacker.url };
    expect((await p.cli(['plan'], proxies)).code).toBe(0);
    expect(attacker.received).toEqual([]);
  });
});

describe('a variable naming the service, set but empty', () => {
  it.each([
    ['VOXFORM_BASE_URL', '', 'base_url_invalid'],
    ['VOXFORM_BASE_URL', '  ', 'base_url_invalid'],
    ['VOXFORM_REGION', '', 'region_invalid'],
  ])('%s=%j is refused, never read as unset (a CI secret that did not reach the job): nothing is sent', async (name, value, code) => {
    const p = await startExampleProject();
    project = p;
    // The manifests name a gateway, which the empty variable would have let them choose.
    const result = await p.cliInProcess(['plan'], { VOXFORM_BASE_URL: undefined, [name]: value });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`error[${code}]: ${name} is set but empty: it names no service, and an empty value is never taken for the default gateway.`);
    expect(p.requests).toEqual([]);
    // With --base-url, which beats both, the variable is not read.
    expect((await p.cliInProcess(['plan', '--base-url', p.url], { VOXFORM_BASE_URL: undefined, [name]: value })).code).toBe(0);
  });
});

describe('loadManifests: base_url is checked against the operator trust', () => {
  const AGENT = 'agents:\n  a: { id: ag_1 }\n';

  it.each([
    { name: 'a gateway', env: {}, operatorBaseUrl: undefined, baseUrl: 'https://api-west.millis.ai/', expected: 'https://api-west.millis.ai' },
    { name: 'the origin of VOXFORM_BASE_URL', env: { VOXFORM_BASE_URL: 'http://127.0.0.1:4010/x' }, operatorBaseUrl: undefined, baseUrl: 'http://127.0.0.1:4010/voice/', expected: 'http://127.0.0.1:4010/voice' },
    { name: 'the origin of --base-url', env: {}, operatorBaseUrl: 'https://proxy.example.com', baseUrl: 'https://proxy.example.com:443/v', expected: 'https://proxy.example.com/v' },
    { name: 'an origin of VOXFORM_TRUSTED_ORIGINS', env: { VOXFORM_TRUSTED_ORIGINS: 'https://a.example.com,https://proxy.example.com' }, operatorBaseUrl: undefined, baseUrl: 'https://proxy.example.com', expected: 'https://proxy.example.com' },
  ])('accepts $name', async ({ env, operatorBaseUrl, baseUrl, expected }) => {
    const result = await loadTree({ 'voxform.yaml': `base_url: ${baseUrl}\n${AGENT}` }, { env, operatorBaseUrl });
    expect(summarize(result)).toEqual([]);
    expect(result.state?.baseUrl).toBe(expected);
  });

  it('refuses any other origin at the value, with the fix', async () => {
    const result = await loadTree({ 'voxform.yaml': `${AGENT}base_url: "https://evil.example.com/x"\n` }, { env: { VOXFORM_BASE_URL: 'http://127.0.0.1:4010' } });
    expect(summarize(result)).toEqual([
      'voxform.yaml:3:11 base_url_untrusted base_url names https://evil.example.com, an origin the operator has not trusted with the API key: ' +
        "the key goes only to the official gateways or to an origin named by VOXFORM_BASE_URL, VOXFORM_TRUSTED_ORIGINS or a command's --base-url; " +
        'remove base_url (and set VOXFORM_REGION or --region), or, as the operator, add https://evil.example.com to VOXFORM_TRUSTED_ORIGINS',
    ]);
    expect(result.state).toBeUndefined();
  });

  it('checks the base_url of the overlay in use, and leaves other overlays to their own pipelines', async () => {
    const files = { 'voxform.yaml': `${AGENT}environments:\n  staging:\n    base_url: https://staging-proxy.example.com\n` };
    expect(summarize(await loadTree(files))).toEqual([]);
    expect(summarize(await loadTree(files, { environment: 'staging' }))[0]).toMatch(/^voxform\.yaml:5:15 base_url_untrusted /);
    const trusted = await loadTree(files, { environment: 'staging', env: { VOXFORM_TRUSTED_ORIGINS: 'https://staging-proxy.example.com' } });
    expect(trusted.state?.baseUrl).toBe('https://staging-proxy.example.com');
  });

  it('refuses a malformed base_url without repeating credentials written in it', async () => {
    const result = await loadTree({ 'voxform.yaml': `${AGENT}base_url: https://user:hunter2@api-west.millis.ai\n` });
    expect(summarize(result)).toEqual([
      'voxform.yaml:3:11 base_url_invalid base_url is not usable: credentials do not belong in the URL; set VOXFORM_API_KEY; write an absolute URL such as https://api-west.millis.ai, or remove it',
    ]);
  });
});
