/** POST /api_keys and POST /user/credentials. */
import type { CreateApiKeyRequest, CreatedApiKey, SetCredentialRequest } from '../../schema/types.gen.js';
import { json } from '../http.js';
import { newId, nowSeconds, randomAlphanumeric } from '../ids.js';
import { sha256Hex } from '../../util/hash.js';
import type { Route } from '../router.js';

/** How much of a new key is kept in the clear as its `prefix`. */
const PREFIX_LENGTH = 8;

export const accountRoutes: Route[] = [
  {
    method: 'POST',
    path: '/api_keys',
    operation: 'create API key',
    header: 'optional',
    body: 'CreateApiKeyRequest',
    handler: async ({ core, body }) => {
      const request = body as CreateApiKeyRequest;
      const key = randomAlphanumeric(32);
      const stored = {
        id: newId('key'),
        type: request.type,
        name: request.name ?? null,
        created_at: nowSeconds(),
        revoked_at: null,
        prefix: key.slice(0, PREFIX_LENGTH),
        legacy: false,
        is_default: false,
        hash: sha256Hex(key),
      };
      core.store.keys.set(stored.hash, stored);
      await core.store.commit();
      const { hash: _hash, ...shown } = stored;
      const created: CreatedApiKey = { ...shown, key };
      return json(201, created);
    },
  },
  {
    method: 'POST',
    path: '/user/credentials',
    operation: 'set credential',
    header: 'unshown',
    body: 'SetCredentialRequest',
    handler: async ({ core, body }) => {
      const { provider, api_key } = body as SetCredentialRequest;
      core.store.credentials.set(provider, { provider, fingerprint: sha256Hex(api_key), updated_at: nowSeconds() });
      await core.store.commit();
      return json(200, { success: true });
    },
  },
];
