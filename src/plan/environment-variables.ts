import type { WorkspaceState } from '../state/types.js';
import type { EnvironmentVariables } from './types.js';

/** The plan's list of variables read: `names` (the manifests' now) against what the workspace's last apply read. */
export function environmentVariablesOf(names: readonly string[], workspace: WorkspaceState): EnvironmentVariables {
  const sorted = [...new Set(names)].sort();
  const previous = workspace.environmentVariables;
  if (previous === undefined) return { names: sorted, new: sorted, recorded: false };
  const known = new Set(previous);
  return { names: sorted, new: sorted.filter((name) => !known.has(name)), recorded: true };
}
