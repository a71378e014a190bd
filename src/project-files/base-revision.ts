/**
 * The base revision the operator names for a pull-request job (`--base`, else VOXFORM_BASE_REF): what
 * the policy is compared with (src/review/) and where the state's evidence of secret places is read
 * as the pull request cannot have edited it (src/state/state-at-revision.ts). The repository never
 * chooses it.
 */
export const BASE_REF_VARIABLE = 'VOXFORM_BASE_REF';

/** The operator's base revision: the flag, else the environment; undefined when neither names one. */
export function baseRefOf(flag: string | undefined, env: Readonly<Record<string, string | undefined>>): string | undefined {
  const ref = (flag ?? env[BASE_REF_VARIABLE] ?? '').trim();
  return ref === '' ? undefined : ref;
}
