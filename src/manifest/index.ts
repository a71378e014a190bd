/** Manifest loading: YAML files → the checked desired state, or every problem with file:line:col. */
export { loadManifests } from './load.js';
export { DEFAULT_MANIFESTS } from '../project-files/manifest-files.js';
export { codeFrame } from './code-frame.js';
export type * from './types.js';
