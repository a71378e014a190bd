/**
 * Every stable error code voxform has, in one place, so a misspelled code fails the type check.
 * docs/errors.md explains each thrown code and docs/manifest.md each diagnostic code; a test
 * (test/docs/errors.test.ts) keeps both tables and these lists in step, both ways.
 */

/** Codes of the errors commands throw (`VoxformError`); the CLI prints them and exits 1. */
export const COMMAND_ERROR_CODES = [
  'agent_unknown',
  'api_key_missing',
  'api_request_invalid',
  'apply_failed',
  'approval_required',
  'base_url_invalid',
  'base_url_untrusted',
  'call_not_found',
  'emulator_data_invalid',
  'emulator_data_too_large',
  'emulator_data_unreadable',
  'emulator_listen_failed',
  'emulator_options_invalid',
  'emulator_port_in_use',
  'emulator_seed_invalid',
  'emulator_seed_unreadable',
  'emulator_unreachable',
  'env_allow_invalid',
  'export_agent_not_found',
  'export_nothing_selected',
  'export_write_failed',
  'file_unreadable',
  'file_unwritable',
  'fmt_unsafe',
  'history_ref_ambiguous',
  'history_ref_unknown',
  'init_aborted',
  'init_path_is_file',
  'init_path_is_folder',
  'init_template_required',
  'init_value_invalid',
  'init_var_invalid',
  'init_var_unknown',
  'init_write_failed',
  'init_vars_missing',
  'interrupted',
  'invalid_argument',
  'invalid_option',
  'judge_missing',
  'knowledge_file_changed',
  'knowledge_file_too_large',
  'knowledge_file_unreadable',
  'lock_not_found',
  'manifest_invalid',
  'manifest_not_found',
  'manifest_unreadable',
  'model_answer_invalid',
  'model_failed',
  'model_url_invalid',
  'plan_failed',
  'plan_stale',
  'plan_unreadable',
  'plan_write_failed',
  'region_invalid',
  'rollback_agent_not_recorded',
  'rollback_env_invalid',
  'rollback_secret_unrecorded',
  'report_no_deploy',
  'report_write_failed',
  'state_backend_failed',
  'state_conflict',
  'state_invalid',
  'state_lock_failed',
  'state_lock_lost',
  'state_locked',
  'state_migrate_refused',
  'state_migrate_mismatch',
  'state_unreadable',
  'state_url_invalid',
  'target_unknown',
  'template_dir_unreadable',
  'template_invalid',
  'template_unknown',
  'template_unknown_variable',
  'template_vars_missing',
  'test_file_too_large',
  'tests_invalid',
  'tests_not_found',
  'tests_unreadable',
  'traffic_profile_invalid',
  'traffic_profile_unreadable',
  'trusted_origins_invalid',
  'workspace_unknown',
  'webhook_call_not_ended',
  'webhook_listen_failed',
  'webhook_not_configured',
  'webhook_payload_invalid',
  'webhook_response_invalid',
  'webhook_target_missing',
  'webhook_url_invalid',
  'would_overwrite',
  'yaml_syntax',
] as const;

/**
 * Codes of the errors the service client throws (`ApiError`). `api_rate_limited`,
 * `api_unavailable` and `api_timeout` are only thrown once the retries the operation allows (and
 * the time-out) are used up. `api_tls`, `api_response_too_large` and `api_interrupted` are network
 * failures too, never retried: a certificate or an oversized answer does not change on a second
 * try, and an interrupted run is stopping. `api_not_sent`: a request withdrawn by its client's
 * signal before it was sent (`ApiClient.withSignal`); the service never saw it.
 */
export const API_ERROR_CODES = [
  'api_unauthorized',
  'api_not_found',
  'api_validation',
  'api_rate_limited',
  'api_unavailable',
  'api_timeout',
  'api_tls',
  'api_response_too_large',
  'api_interrupted',
  'api_not_sent',
  'api_error',
] as const;

/** Codes of the resources a plan cannot be made for; `plan_failed` lists each with its code. */
export const PLAN_PROBLEM_CODES = [
  'agent_not_on_service',
  'phone_not_on_account',
] as const;

/** Every code a manifest diagnostic can have (docs/manifest.md explains each). */
export const DIAGNOSTIC_CODES = [
  'yaml_syntax',
  'yaml_tab_indent',
  'yaml_warning',
  'yaml_complex_key',
  'yaml_merge',
  'yaml_alias_limit',
  'yaml_alias_cycle',
  'yaml_too_deep',
  'yaml_too_large',
  'yaml_indentation',
  'duplicate_key',
  'file_not_utf8',
  'empty_file',
  'not_a_mapping',
  'unknown_field',
  'missing_field',
  'type_mismatch',
  'invalid_value',
  'duplicate_item',
  'read_only_field',
  'invalid_name',
  'duplicate_resource',
  'too_many_resources',
  'duplicate_setting',
  'duplicate_id',
  'missing_id',
  'reference_missing',
  'env_missing',
  'env_syntax',
  'env_not_allowed',
  'env_forbidden',
  'env_value_short',
  'base_url_invalid',
  'base_url_untrusted',
  'environment_unknown',
  'environment_unknown_resource',
  'file_missing',
  'file_unreadable',
  'file_outside_project',
  'file_not_regular',
  'file_too_large',
  'knowledge_type_unknown',
  'secret_in_manifest',
  'template_unknown',
  'template_invalid',
  'template_var_missing',
  'template_var_unknown',
  'template_var_undeclared',
  'vars_without_template',
] as const;

export type CommandErrorCode = (typeof COMMAND_ERROR_CODES)[number];
export type ApiErrorCode = (typeof API_ERROR_CODES)[number];
export type PlanProblemCode = (typeof PLAN_PROBLEM_CODES)[number];
export type DiagnosticCode = (typeof DIAGNOSTIC_CODES)[number];

/** Any code an error of voxform can carry: thrown, from the client, on a plan problem, or on a diagnostic. */
export type ErrorCode = CommandErrorCode | ApiErrorCode | PlanProblemCode | DiagnosticCode;

/** Every code of errors voxform throws (docs/errors.md has a row for each). */
export const THROWN_ERROR_CODES: readonly ErrorCode[] = [...COMMAND_ERROR_CODES, ...API_ERROR_CODES, ...PLAN_PROBLEM_CODES];
