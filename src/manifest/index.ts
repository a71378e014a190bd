/** Manifest loading: YAML files → the checked desired state, or every problem with file:line:col. */
export { loadManifests, readProject, resolveEnvironment, type ProjectManifests } from './load.js';
export type * from './types.js';
