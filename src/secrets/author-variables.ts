/**
 * The environment variables whose value the author of the change writes. A CI runner fills them
 * from the pull request itself (its branch, its commit, its title), so their values are the
 * author's text, as a `${env:X:-fallback}` is: a `${env:…}` reading one is masked where it stands
 * (its config paths, a header), as a value too short to search for is, and its value is never
 * searched for in output. Searched for, it would let the author hide words of their choosing from
 * every output: `CI_COMMIT_MESSAGE="your full card number"` and a manifest reading it made those
 * words `(sensitive)` in the plan wherever they stood, a new prompt's text included.
 * The operator still decides which variables a manifest may read at all (`VOXFORM_ENV_ALLOW`).
 * Names are compared in upper case: Windows finds a variable whatever the case of its name.
 */
export const AUTHOR_WRITTEN_VARIABLES: ReadonlySet<string> = new Set([
  // GitHub Actions: the pull request's head branch; the ref a run is for, on a push the branch or tag its pusher named
  // (`refs/pull/N/merge` on a pull request, no secret either).
  'GITHUB_HEAD_REF',
  'GITHUB_REF',
  'GITHUB_REF_NAME',
  // GitHub Actions: the workflow file's path and the ref above, which ends it.
  'GITHUB_WORKFLOW_REF',
  // GitHub Actions: the account that started the run, named by its owner.
  'GITHUB_ACTOR',
  'GITHUB_TRIGGERING_ACTOR',
  // GitLab CI/CD: the commit's text (and a tag's, on a tag pipeline), written by whoever made it.
  'CI_COMMIT_MESSAGE',
  'CI_COMMIT_TITLE',
  'CI_COMMIT_DESCRIPTION',
  'CI_COMMIT_TAG_MESSAGE',
  'CI_COMMIT_AUTHOR',
  // GitLab CI/CD: the merge request's title and description.
  'CI_MERGE_REQUEST_TITLE',
  'CI_MERGE_REQUEST_DESCRIPTION',
  // GitLab CI/CD: branch and tag names, and their slugs: the source branch is named by the change's author.
  'CI_COMMIT_BRANCH',
  'CI_COMMIT_REF_NAME',
  'CI_COMMIT_REF_SLUG',
  'CI_COMMIT_TAG',
  'CI_MERGE_REQUEST_SOURCE_BRANCH_NAME',
  'CI_EXTERNAL_PULL_REQUEST_SOURCE_BRANCH_NAME',
  // GitLab CI/CD: a fork's project path, its address and an external pull request's repository, named by its owner.
  'CI_MERGE_REQUEST_SOURCE_PROJECT_PATH',
  'CI_MERGE_REQUEST_SOURCE_PROJECT_URL',
  'CI_EXTERNAL_PULL_REQUEST_SOURCE_REPOSITORY',
  // GitLab CI/CD: the user who started the pipeline, as they named themselves.
  'GITLAB_USER_LOGIN',
  'GITLAB_USER_NAME',
  'GITLAB_USER_EMAIL',
]);

/** Whether the value of the variable `name` is text the change's author writes (see AUTHOR_WRITTEN_VARIABLES): masked by place, never searched for. */
export function writtenByAuthor(name: string): boolean {
  return AUTHOR_WRITTEN_VARIABLES.has(name.toUpperCase());
}
