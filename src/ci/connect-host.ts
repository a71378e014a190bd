/**
 * The one place that picks a code host: the provider the operator named decides which
 * `ReviewHost` `voxform ci` talks to, so no other file of src/ci/ knows GitHub from GitLab.
 */
import type { SecretRegistry } from '../secrets/redact.js';
import { connectGitHub } from './github.js';
import { connectGitLab } from './gitlab.js';
import type { Provider, ReviewHost } from './host.js';
import { registerCiTokens, type Env } from './runner-env.js';

/** The host named by `provider`, from the operator's environment only: token, API URL, project and review. */
export function connectHost(provider: Provider, env: Env, secrets: SecretRegistry): ReviewHost {
  registerCiTokens(env, secrets);
  const redact = (text: string) => secrets.redact(text);
  return provider === 'github' ? connectGitHub(env, redact) : connectGitLab(env, redact);
}
