/**
 * The manifest's `base_url` and `region`. They decide where the API key goes, so they are written
 * out (never `${env:…}`), and a `base_url` must name an origin the operator trusts. The operator's
 * own flags and environment beat both.
 */
import { baseUrlProblem, normalizeBaseUrl } from '../api/regions.js';
import { trustedOrigins, untrustedBaseUrlMessage } from '../api/trusted-origins.js';
import type { DiagnosticList } from './diagnostics.js';
import type { Layer, Setting } from './fragments.js';
import { interpolateString } from './interpolate.js';
import { hasEnvReference } from '../secrets/env-reference.js';
import type { Span } from './source.js';

type Env = Readonly<Record<string, string | undefined>>;

interface ServiceSettings {
  /** Normalized, and on an origin the operator trusts; undefined when not set or refused (then a diagnostic says why). */
  baseUrl: string | undefined;
  region: 'us' | 'eu' | undefined;
}

interface ServiceSettingsContext {
  diagnostics: DiagnosticList;
  /** The operator's environment: `VOXFORM_BASE_URL` and `VOXFORM_TRUSTED_ORIGINS` decide which origins are trusted. */
  env: Env;
  /** `--base-url`, when the operator gave it: its origin is trusted too. */
  operatorBaseUrl?: string | undefined;
}

/** `base_url` and `region` of the layer in use (the manifest, with the `--env` overlay applied). */
export function resolveServiceSettings(layer: Layer, ctx: ServiceSettingsContext): ServiceSettings {
  const region = layer.settings.region;
  const regionValue = region && !refuseReferences(region, 'region', ctx.diagnostics) ? region.value : undefined;
  return {
    baseUrl: layer.settings.base_url ? checkBaseUrl(layer.settings.base_url, ctx) : undefined,
    region: regionValue === 'us' || regionValue === 'eu' ? regionValue : undefined,
  };
}

/** Reports every `${env:…}` in the `base_url` and `region` of a layer (in use or not). */
export function refuseSettingReferences(layer: Layer, diagnostics: DiagnosticList): void {
  for (const name of ['base_url', 'region'] as const) {
    const setting = layer.settings[name];
    if (setting) refuseReferences(setting, name, diagnostics);
  }
}

function refuseReferences(setting: Setting, name: 'base_url' | 'region', diagnostics: DiagnosticList): boolean {
  if (typeof setting.value !== 'string' || !hasEnvReference(setting.value)) return false;
  // In a forbidden place nothing is read: the environment given is never consulted.
  interpolateString(setting.value, spanOf(setting), { env: {}, diagnostics, onSecret: () => undefined }, name);
  return true;
}

function checkBaseUrl(setting: Setting, ctx: ServiceSettingsContext): string | undefined {
  if (typeof setting.value !== 'string') return undefined; // the schema reports it
  if (refuseReferences(setting, 'base_url', ctx.diagnostics)) return undefined;
  const problem = baseUrlProblem(setting.value);
  if (problem !== undefined) {
    ctx.diagnostics.error('base_url_invalid', `base_url is not usable: ${problem}; write an absolute URL such as https://api-west.millis.ai, or remove it`, spanOf(setting));
    return undefined;
  }
  const baseUrl = normalizeBaseUrl(setting.value, 'base_url');
  const origin = new URL(baseUrl).origin;
  if (!trustedOrigins({ operatorBaseUrl: ctx.operatorBaseUrl, env: ctx.env }).has(origin)) {
    const { message, hint } = untrustedBaseUrlMessage(origin);
    ctx.diagnostics.error('base_url_untrusted', `${message}: ${hint}`, spanOf(setting));
    return undefined;
  }
  return baseUrl;
}

function spanOf(setting: Setting): Span {
  return setting.valueSpan ?? setting.keySpan;
}
