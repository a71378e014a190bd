/** Where call data goes: webhook and tool targets, and the credentials sent with them. */
import { hasEnvReference } from '../../secrets/env-reference.js';
import { formatDotted } from '../../util/field-path.js';
import { isLoopback } from '../../util/loopback.js';
import { allTargetPlaces, configLocation } from '../places.js';
import type { PolicyRule, RuleHit } from '../types.js';

/**
 * Whether a header name says it carries a credential, by its words (its parts between hyphens and
 * underscores): `authorization`, `x-auth`, `x-api-key`, `x-hook-token`, `x-hub-signature`, and a
 * word written together that ends in a credential's name (`x-authtoken`, `x-accesstoken`).
 * Not by letters inside a word: `x-keyword` and `x-author` carry none.
 */
const CREDENTIAL_WORD = /^auth(?:$|oriz|entic)|(?:token|key|secret|password|signature|credentials?|cookie|session)$/;

function isCredentialHeader(name: string): boolean {
  return name.toLowerCase().split(/[-_]/).some((word) => CREDENTIAL_WORD.test(word));
}
/** Query parameters that carry a credential. */
const CREDENTIAL_PARAMETER = /^(?:token|access_token|api[-_]?key|key|secret|password|sig|signature|auth)$/i;

function parsed(url: string): URL | undefined {
  // A value still holding `${env:…}` or `{{…}}` is not a URL yet: nothing to say about it.
  if (hasEnvReference(url) || url.includes('{{')) return undefined;
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

function hasAuthentication(headers: Record<string, unknown> | undefined): boolean {
  return headers !== undefined && Object.keys(headers).some(isCredentialHeader);
}

export const SECURITY_RULES: PolicyRule[] = [
  {
    id: 'security-plain-http',
    area: 'security',
    level: 'mandatory',
    summary: 'Webhook and tool URLs use https:// (plain http:// only to a loopback host).',
    hint: 'Use the https:// address of the receiver; call data and headers sent over plain HTTP can be read on the way.',
    check: ({ desired }) =>
      allTargetPlaces(desired).flatMap((target): RuleHit[] => {
        const url = parsed(target.url);
        if (!url || url.protocol !== 'http:' || isLoopback(url.hostname)) return [];
        return [{ resource: target.resource, message: `${target.what} sends call data over plain HTTP to ${url.host}`, location: target.locate() }];
      }),
  },
  {
    id: 'security-literal-credential',
    area: 'security',
    level: 'mandatory',
    summary: 'Credential headers come from ${env:NAME}, never written in the manifest.',
    hint: 'Write the header as "${env:NAME}" (or "Bearer ${env:NAME}") and set NAME where plan and apply run.',
    check: ({ desired }) =>
      allTargetPlaces(desired).flatMap((target): RuleHit[] => {
        const fromEnv = target.agent.envReferences ?? {};
        return Object.keys(target.headers ?? {})
          .filter(isCredentialHeader)
          .filter((name) => fromEnv[formatDotted(['config', ...target.headersPath, name])] === undefined)
          .map((name) => ({
            resource: target.resource,
            // The value is never quoted: it is the credential.
            message: `${target.what} header "${name}" is written literally instead of read from \${env:…}`,
            location: configLocation(target.agent, [...target.headersPath, name]),
          }));
      }),
  },
  {
    id: 'security-url-credential',
    area: 'security',
    level: 'mandatory',
    summary: 'No credentials in webhook and tool URLs (user:password@ or a token query parameter).',
    hint: 'Send the credential in a header read from ${env:NAME}; URLs end up in logs.',
    check: ({ desired }) =>
      allTargetPlaces(desired).flatMap((target): RuleHit[] => {
        const url = parsed(target.url);
        if (!url) return [];
        const parameter = [...url.searchParams.keys()].find((name) => CREDENTIAL_PARAMETER.test(name));
        if (url.username === '' && url.password === '' && parameter === undefined) return [];
        const what = parameter === undefined ? 'a user name or password' : `a credential in its "${parameter}" parameter`;
        return [{ resource: target.resource, message: `${target.what}'s URL carries ${what}`, location: target.locate() }];
      }),
  },
  {
    id: 'security-webhook-auth',
    area: 'security',
    level: 'mandatory',
    summary: 'Webhooks (session data, extra prompt) send an authentication header.',
    hint: 'Add headers: { authorization: "Bearer ${env:HOOK_TOKEN}" } (or x-…-token) and check it in the receiver, so only the service can post call data to it.',
    check: ({ desired }) =>
      allTargetPlaces(desired)
        .filter((target) => target.kind === 'webhook' && !hasAuthentication(target.headers) && !isLoopback(parsed(target.url)?.hostname ?? ''))
        .map((target) => ({ resource: target.resource, message: `${target.what} sends no authentication header: anyone who learns its URL can post to it`, location: target.locate() })),
  },
  {
    id: 'security-tool-auth',
    area: 'security',
    level: 'advisory',
    summary: 'Tools that call a webhook send an authentication header.',
    hint: 'Add header: { authorization: "Bearer ${env:TOOL_TOKEN}" } so the tool\'s server can tell the agent from anyone else.',
    check: ({ desired }) =>
      allTargetPlaces(desired)
        .filter((target) => target.kind === 'tool' && !hasAuthentication(target.headers) && !isLoopback(parsed(target.url)?.hostname ?? ''))
        .map((target) => ({ resource: target.resource, message: `${target.what} calls its webhook with no authentication header`, location: target.locate() })),
  },
];
