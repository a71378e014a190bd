/* eslint-disable */
// DO NOT EDIT: generated from schemas/*.schema.json by `npm run gen` (scripts/gen-types.mjs).
// test/schema/types-fresh.test.ts fails when this file is stale.

/**
 * The service's regional gateway.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "Region".
 */
export type Region = 'us' | 'eu';
/**
 * Deep-merged under every agent's config.
 */
export type AgentConfigSpec = AgentConfigUpdateParts & {
  /**
   * The system prompt, inline or { file: prompts/NAME.md }.
   */
  prompt?: string | FileInclude;
};
/**
 * AgentConfigCommon plus the update-shape sub-objects; open, so that the closed shapes below can add `prompt`.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "AgentConfigUpdateParts".
 */
export type AgentConfigUpdateParts = AgentConfigCommon & AgentConfigUpdateParts1;
/**
 * End-of-call webhook.
 */
export type WebhookTarget =
  | string
  | {
      url: string;
      headers?: SecretHeaders;
    };
/**
 * Prefetch webhook, called before a session.
 */
export type WebhookTarget1 =
  | string
  | {
      url: string;
      headers?: SecretHeaders;
    };
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "StringList".
 */
export type StringList = string[];
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "VoiceUpdate".
 */
export type VoiceUpdate = VoiceCommon;
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "FlowUpdate".
 */
export type FlowUpdate = FlowCommon & FlowUpdate1;
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "VoicemailUpdate".
 */
export type VoicemailUpdate = VoicemailCommon;
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "LlmUpdate".
 */
export type LlmUpdate = LlmCommon;
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "SpeechToTextUpdate".
 */
export type SpeechToTextUpdate = SpeechToTextCommon;
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "ToolUpdate".
 */
export type ToolUpdate = ToolCommon;
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "PlatformFunctionUpdate".
 */
export type PlatformFunctionUpdate = PlatformFunctionCommon;
/**
 * The agent's AgentConfig in the update shape (any subset), where `prompt` may also be a file include. An explicit null clears a field.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "AgentConfigSpec".
 */
export type AgentConfigSpec1 = AgentConfigUpdateParts & AgentConfigSpec2;
/**
 * A webhook: a URL, or a URL with headers sent with every request.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "WebhookTarget".
 */
export type WebhookTarget2 =
  | string
  | {
      url: string;
      headers?: SecretHeaders;
    };
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "VoiceRead".
 */
export type VoiceRead = VoiceCommon & VoiceRead1;
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "VoicemailRead".
 */
export type VoicemailRead = VoicemailCommon & VoicemailRead1;
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "FlowRead".
 */
export type FlowRead = FlowCommon & FlowRead1;
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "LlmRead".
 */
export type LlmRead = LlmCommon & LlmRead1;
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "SpeechToTextRead".
 */
export type SpeechToTextRead = SpeechToTextCommon & SpeechToTextRead1;
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "ToolRead".
 */
export type ToolRead = ToolCommon & ToolRead1;
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "PlatformFunctionRead".
 */
export type PlatformFunctionRead = PlatformFunctionCommon & PlatformFunctionRead1;
/**
 * AgentConfig in the shape the update operation (and chat completions, SIP creation and SIP registration) takes: without the provider extras.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "AgentConfigUpdate".
 */
export type AgentConfigUpdate = AgentConfigUpdateParts & AgentConfigUpdate1;
/**
 * AgentConfig as the service returns it (read agent, register_call, phone override): with voice.provider, flow.voicemail.action, llm.model, speech_to_text.provider and response_mode on tools and platform functions.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "AgentConfigRead".
 */
export type AgentConfigRead = AgentConfigCommon & AgentConfigRead1;
/**
 * What action endpoints answer: the spec's {success} or, as seen in the wild, the bare string "ok".
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "ActionResponse".
 */
export type ActionResponse = SuccessResponse | 'ok';
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "PhoneList".
 */
export type PhoneList = Phone[];
/**
 * The new file's id: a JSON string, or an object with `id`.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "CreateFileResponse".
 */
export type CreateFileResponse =
  | string
  | {
      id: string;
    };
/**
 * A call record as GET /call-logs returns it.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "GlobalCallHistoryRecord".
 */
export type GlobalCallHistoryRecord = CallHistoryRecord & GlobalCallHistoryRecord1;
/**
 * Letters, digits, '-', '_' and '.', starting with a letter or digit.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "LocalName".
 */
export type LocalName = string;
/**
 * An E.164 number such as +15551230001.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "PhoneNumber".
 */
export type PhoneNumber = string;
/**
 * A JavaScript regular expression the text must match (anywhere; anchor with ^ and $). Case-sensitive (JavaScript has no inline (?i): use a character class such as [Aa], or contains). Limited to 500 characters, and a match that runs longer than its time budget fails the check instead of hanging voxform.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "Regex".
 */
export type Regex = string;
/**
 * What a language model (the judge: VOXFORM_JUDGE_URL, VOXFORM_JUDGE_MODEL, VOXFORM_JUDGE_API_KEY) must find true of the text. Its verdict and reason are recorded. Without a judge, `--skip-judge` reports the check as skipped.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "Rubric".
 */
export type Rubric = string;

/**
 * A voxform manifest (version 1): voice agents, phone numbers, campaigns, knowledge files and provider credentials as code. See docs/manifest.md.
 */
export interface Manifest {
  /**
   * The manifest format version.
   */
  version?: 1;
  region?: Region;
  /**
   * The service's base URL; overrides region.
   */
  base_url?: string;
  defaults?: Defaults;
  /**
   * Agents by local name (how other resources refer to them).
   */
  agents?: {
    [k: string]: AgentSpec | undefined;
  };
  /**
   * Phone numbers by E.164 number.
   */
  phones?: {
    [k: string]: PhoneSpec | undefined;
  };
  /**
   * Campaigns by local name.
   */
  campaigns?: {
    [k: string]: CampaignSpec | undefined;
  };
  /**
   * Knowledge-base files by local name.
   */
  knowledge?: {
    [k: string]: KnowledgeSpec | undefined;
  };
  /**
   * Third-party provider credentials, one per provider.
   */
  credentials?: CredentialSpec[];
  /**
   * Overlays chosen with --env NAME, deep-merged over everything above.
   */
  environments?: {
    [k: string]: EnvironmentSpec | undefined;
  };
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "Defaults".
 */
export interface Defaults {
  config?: AgentConfigSpec;
}
/**
 * The AgentConfig fields shared by every shape, except `prompt` (which the manifest widens to allow a file include) and the sub-objects whose read shape carries provider extras.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "AgentConfigCommon".
 */
export interface AgentConfigCommon {
  first_message?: string;
  app_functions?: {
    name?: string;
    credentials?: {
      [k: string]: unknown | undefined;
    };
  }[];
  custom_llm_websocket?: string;
  /**
   * A language tag such as en-US.
   */
  language?: string;
  vad_threshold?: number;
  session_timeout?: {
    /**
     * Milliseconds.
     */
    max_duration?: number;
    /**
     * Milliseconds.
     */
    max_idle?: number;
    message?: string;
  };
  session_data_webhook?: WebhookTarget;
  privacy_settings?: {
    opt_out_data_collection?: boolean;
    do_not_call_detection?: boolean;
  };
  custom_vocabulary?: {
    keywords?: {
      [k: string]: unknown | undefined;
    };
  };
  extra_prompt_webhook?: WebhookTarget1;
  switch_language?: {
    languages?: StringList;
  };
  knowledge_base?: {
    files?: StringList;
    messages?: StringList;
  };
  call_settings?: {
    enable_recording?: boolean;
    background?: {
      url?: string;
      volume?: number;
    };
  };
  memory?: {
    user_identifier_key?: string;
  };
  timezone?: string;
  status?: string;
}
/**
 * HTTP headers sent with a webhook or tool call; they usually carry tokens.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "SecretHeaders".
 */
export interface SecretHeaders {
  [k: string]: string | undefined;
}
export interface AgentConfigUpdateParts1 {
  voice?: VoiceUpdate;
  flow?: FlowUpdate;
  llm?: LlmUpdate;
  speech_to_text?: SpeechToTextUpdate;
  tools?: ToolUpdate[];
  platform_functions?: PlatformFunctionUpdate[];
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "VoiceCommon".
 */
export interface VoiceCommon {
  voice_id?: string;
  model?: string;
  /**
   * Free-form settings of the speech-synthesis vendor.
   */
  settings?: {
    [k: string]: unknown | undefined;
  };
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "FlowCommon".
 */
export interface FlowCommon {
  user_start_first?: boolean;
  interruption?: {
    allowed?: boolean;
    keep_interruption_message?: boolean;
    /**
     * Spelled with three s, as the service spells it.
     */
    first_messsage?: boolean;
  };
  response_delay?: number;
  auto_fill_responses?: {
    /**
     * Milliseconds.
     */
    response_gap_threshold?: number;
    messages?: StringList;
  };
  agent_terminate_call?: {
    enabled?: boolean;
    instruction?: string;
    messages?: StringList;
  };
  call_transfer?: {
    phone?: string;
    phones?: {
      phone?: string;
      description?: string;
    }[];
    instruction?: string;
    messages?: StringList;
  };
  inactivity_handling?: {
    /**
     * Milliseconds.
     */
    idle_time?: number;
    message?: string;
  };
  dtmf_dial?: {
    enabled?: boolean;
    instruction?: string;
  };
}
export interface FlowUpdate1 {
  voicemail?: VoicemailUpdate;
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "VoicemailCommon".
 */
export interface VoicemailCommon {
  message?: string;
  continue_on_voice_activity?: boolean;
  detection_phrases?: StringList;
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "LlmCommon".
 */
export interface LlmCommon {
  temperature?: number;
  history_settings?: {
    history_message_limit?: number;
    history_tool_result_limit?: number;
  };
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "SpeechToTextCommon".
 */
export interface SpeechToTextCommon {
  multilingual?: boolean;
  model?: string;
  denoise?: boolean;
  denoiser?: {
    settings?: {
      [k: string]: unknown | undefined;
    };
  };
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "ToolCommon".
 */
export interface ToolCommon {
  name?: string;
  description?: string;
  params?: ToolParam[];
  webhook?: string;
  header?: SecretHeaders;
  method?: string;
  timeout?: number;
  run_after_call?: boolean;
  messages?: StringList;
  execute_after_message?: boolean;
  exclude_session_id?: boolean;
  include_metadata?: boolean;
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "ToolParam".
 */
export interface ToolParam {
  name?: string;
  required?: boolean;
  type?: string;
  description?: string;
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "PlatformFunctionCommon".
 */
export interface PlatformFunctionCommon {
  name?: string;
  description?: string;
  data?: {
    param?: ToolParam;
  };
  type?: string;
  params?: ToolParam[];
  messages?: StringList;
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "FileInclude".
 */
export interface FileInclude {
  /**
   * Path relative to the manifest file.
   */
  file: string;
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "AgentSpec".
 */
export interface AgentSpec {
  /**
   * The live agent's id (agents are adopted: the service has no create).
   */
  id?: string;
  /**
   * The display name.
   */
  name?: string;
  /**
   * Start from templates/NAME: the template gives the base, this entry overrides it.
   */
  template?: string;
  /**
   * Values for the template's {{variables}}.
   */
  vars?: {
    [k: string]: string | number | boolean | undefined;
  };
  config?: AgentConfigSpec1;
  /**
   * Local names of knowledge files attached to this agent.
   */
  knowledge?: string[];
  /**
   * Dotted paths owned elsewhere (the dashboard): never diffed, never sent.
   */
  ignore?: string[];
}
export interface AgentConfigSpec2 {
  /**
   * The system prompt, inline or { file: prompts/NAME.md }.
   */
  prompt?: string | FileInclude;
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "PhoneSpec".
 */
export interface PhoneSpec {
  /**
   * The agent answering this number: a local agent name, or { id } of an agent not in the manifest.
   */
  agent?:
    | string
    | {
        id: string;
      };
  import?: PhoneImportSpec;
}
/**
 * How to import the number when the service does not have it yet.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "PhoneImportSpec".
 */
export interface PhoneImportSpec {
  provider?: string;
  country: string;
  region: string;
  api_key: string;
  api_secret: string;
  app_id?: string | null;
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "CampaignSpec".
 */
export interface CampaignSpec {
  /**
   * The live campaign's id.
   */
  id?: string;
  name?: string;
  include_metadata_in_prompt?: boolean;
  /**
   * The caller number: a phone of this manifest.
   */
  caller?: string;
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "KnowledgeSpec".
 */
export interface KnowledgeSpec {
  /**
   * Path relative to the manifest file.
   */
  file?: string;
  /**
   * The file's name on the service; defaults to the file's base name.
   */
  name?: string;
  description?: string;
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "CredentialSpec".
 */
export interface CredentialSpec {
  provider: string;
  api_key: string;
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "EnvironmentSpec".
 */
export interface EnvironmentSpec {
  region?: Region;
  base_url?: string;
  defaults?: Defaults;
  agents?: {
    [k: string]: AgentSpec | undefined;
  };
  phones?: {
    [k: string]: PhoneSpec | undefined;
  };
  campaigns?: {
    [k: string]: CampaignSpec | undefined;
  };
  knowledge?: {
    [k: string]: KnowledgeSpec | undefined;
  };
  credentials?: CredentialSpec[];
}
export interface VoiceRead1 {
  /**
   * Speech-synthesis vendor; set by the service.
   */
  provider?: string;
}
export interface VoicemailRead1 {
  action?: string;
}
export interface FlowRead1 {
  voicemail?: VoicemailRead;
}
export interface LlmRead1 {
  model?: string;
}
export interface SpeechToTextRead1 {
  provider?: string;
}
export interface ToolRead1 {
  response_mode?: string;
}
export interface PlatformFunctionRead1 {
  response_mode?: string;
}
export interface AgentConfigUpdate1 {
  prompt?: string;
}
export interface AgentConfigRead1 {
  prompt?: string;
  voice?: VoiceRead;
  flow?: FlowRead;
  llm?: LlmRead;
  speech_to_text?: SpeechToTextRead;
  tools?: ToolRead[];
  platform_functions?: PlatformFunctionRead[];
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "Agent".
 */
export interface Agent {
  id: string;
  name: string;
  config: AgentConfigRead;
  /**
   * Unix seconds.
   */
  created_at?: number;
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "UpdateAgentRequest".
 */
export interface UpdateAgentRequest {
  name: string;
  config: AgentConfigUpdate;
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "CreateApiKeyRequest".
 */
export interface CreateApiKeyRequest {
  type: 'public' | 'private';
  name?: string | null;
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "CreatedApiKey".
 */
export interface CreatedApiKey {
  id: string;
  type: 'public' | 'private';
  name?: string | null;
  created_at?: number | null;
  revoked_at?: number | null;
  prefix: string;
  legacy: boolean;
  is_default: boolean;
  /**
   * The key value, shown once at creation.
   */
  key: string;
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "SetCredentialRequest".
 */
export interface SetCredentialRequest {
  provider: string;
  api_key: string;
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "SuccessResponse".
 */
export interface SuccessResponse {
  success: boolean;
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "Campaign".
 */
export interface Campaign {
  id: string;
  name?: string;
  status?: string;
  created_at?: number;
  /**
   * The caller phone number.
   */
  caller?: string;
  include_metadata_in_prompt?: boolean;
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "EditCampaignInfoRequest".
 */
export interface EditCampaignInfoRequest {
  name?: string;
  include_metadata_in_prompt?: boolean;
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "SetCallerRequest".
 */
export interface SetCallerRequest {
  caller: string;
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "Phone".
 */
export interface Phone {
  /**
   * The E.164 number.
   */
  id: string;
  /**
   * Spelled this way by the service.
   */
  create_at?: number;
  status?: string;
  agent_id?: string;
  agent_config_override?: AgentConfigRead;
  tags?: StringList;
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "SetPhoneAgentRequest".
 */
export interface SetPhoneAgentRequest {
  agent_id: string;
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "ImportPhoneRequest".
 */
export interface ImportPhoneRequest {
  country: string;
  phone: string;
  region: string;
  api_key: string;
  api_secret: string;
  provider?: string;
  app_id?: string | null;
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "ChatMessage".
 */
export interface ChatMessage {
  role: string;
  content: string;
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "SessionContinuation".
 */
export interface SessionContinuation {
  session_id?: string;
  messages?: ChatMessage[];
  identifier_variable?: string;
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "RegisterCallRequest".
 */
export interface RegisterCallRequest {
  agent_id: string;
  agent_config?: AgentConfigRead;
  metadata?: {
    [k: string]: unknown | undefined;
  };
  include_metadata_in_prompt?: boolean;
  from_phone?: string;
  to_phone?: string;
  session_continuation?: SessionContinuation;
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "RegisterCallResponse".
 */
export interface RegisterCallResponse {
  call_id: string;
  session_id: string;
}
/**
 * The agent a SIP call or SIP session starts with (update shape of AgentConfig).
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "InitAgent".
 */
export interface InitAgent {
  agent_id: string;
  agent_config?: AgentConfigUpdate;
  metadata?: {
    [k: string]: unknown | undefined;
  };
  include_metadata_in_prompt?: boolean;
  from_phone?: string;
  to_phone?: string;
  session_continuation?: SessionContinuation;
}
/**
 * The agent a SIP call or SIP session starts with (update shape of AgentConfig).
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "RegisterSipCallRequest".
 */
export interface RegisterSipCallRequest {
  agent_id: string;
  agent_config?: AgentConfigUpdate;
  metadata?: {
    [k: string]: unknown | undefined;
  };
  include_metadata_in_prompt?: boolean;
  from_phone?: string;
  to_phone?: string;
  session_continuation?: SessionContinuation;
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "RegisterSipCallResponse".
 */
export interface RegisterSipCallResponse {
  call_id: string;
  sip_uri?: string;
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "CreateSipRequest".
 */
export interface CreateSipRequest {
  init_agent: InitAgent;
  region?: string;
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "CreateSipResponse".
 */
export interface CreateSipResponse {
  /**
   * sip:<call_id>@<host>
   */
  sip: string;
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "ChatCompletionRequest".
 */
export interface ChatCompletionRequest {
  agent: {
    agent_id: string;
    agent_config?: AgentConfigUpdate;
    metadata?: {
      [k: string]: unknown | undefined;
    };
    include_metadata_in_prompt?: boolean;
  };
  messages: ChatMessage[];
  end_of_session?: boolean;
}
/**
 * One Server-Sent Event of the chat completions stream (OpenAI chunk format).
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "ChatCompletionChunk".
 */
export interface ChatCompletionChunk {
  id?: string;
  object?: string;
  session_id?: string;
  choices: {
    index: number;
    delta: {
      role?: string;
      content?: string;
    };
    finish_reason?: string | null;
  }[];
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "PresignedUrlRequest".
 */
export interface PresignedUrlRequest {
  filename: string;
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "PresignedUrlResponse".
 */
export interface PresignedUrlResponse {
  url: string;
  fields: {
    [k: string]: string | undefined;
  };
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "KnowledgeFileRecord".
 */
export interface KnowledgeFileRecord {
  object_key: string;
  description?: string;
  name: string;
  file_type?: string;
  size?: number;
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "SetAgentFilesRequest".
 */
export interface SetAgentFilesRequest {
  agent_id: string;
  files: StringList;
  messages?: StringList;
}
/**
 * A call record as GET /agents/{id}/call-histories returns it.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "CallHistoryRecord".
 */
export interface CallHistoryRecord {
  agent_id?: string;
  agent_config?: {
    [k: string]: unknown | undefined;
  };
  /**
   * Seconds.
   */
  duration?: number;
  /**
   * Session start, Unix seconds.
   */
  ts?: number;
  /**
   * The chat history as a JSON string.
   */
  chat?: string;
  chars_used?: number;
  session_id?: string;
  call_id?: string;
  cost_breakdown?: CostItem[];
  voip?: {
    [k: string]: unknown | undefined;
  };
  recording?: {
    [k: string]: unknown | undefined;
  };
  metadata?: {
    [k: string]: unknown | undefined;
  };
  function_calls?: {
    [k: string]: unknown | undefined;
  }[];
  call_status?: string;
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "CostItem".
 */
export interface CostItem {
  type?: string;
  provider?: string;
  credit?: number;
}
export interface GlobalCallHistoryRecord1 {
  campaign_id?: string | null;
  error_message?: string | null;
  call_metrics?: {
    [k: string]: unknown | undefined;
  };
  carrier_call_log?: {
    [k: string]: unknown | undefined;
  };
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "CallHistoriesQuery".
 */
export interface CallHistoriesQuery {
  /**
   * Cursor: only records with ts below this.
   */
  start_at?: number;
  limit?: number;
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "CallHistoriesResponse".
 */
export interface CallHistoriesResponse {
  items: CallHistoryRecord[];
  pagination?: {
    success?: boolean;
    next_cursor?: number | null;
  };
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "CallLogsQuery".
 */
export interface CallLogsQuery {
  limit?: number;
  /**
   * Cursor: the next_cursor of the previous page.
   */
  start_after_ts?: number;
  /**
   * Unix seconds, inclusive.
   */
  start_time?: number;
  /**
   * Unix seconds, inclusive.
   */
  end_time?: number;
  agent_id?: string;
  call_status?: string;
  /**
   * Matched against the voip field.
   */
  phone_number?: string;
  campaign_id?: string;
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "CallLogsResponse".
 */
export interface CallLogsResponse {
  histories: GlobalCallHistoryRecord[];
  /**
   * The ts of the last record; 0 or null on the last page.
   */
  next_cursor?: number | null;
}
/**
 * Query parameters of the prefetch GET; every session metadata key is flattened in beside these.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "PrefetchWebhookQuery".
 */
export interface PrefetchWebhookQuery {
  session_id: string;
  agent_id: string;
  from?: string;
  to?: string;
  [k: string]: string | undefined;
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "PrefetchWebhookResponse".
 */
export interface PrefetchWebhookResponse {
  metadata?: {
    [k: string]: unknown | undefined;
  };
  extra_prompt?: string;
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "EndOfCallPayload".
 */
export interface EndOfCallPayload {
  /**
   * A JSON string of the chat history.
   */
  chat: string;
  function_calls?: {
    name?: string;
    params?: unknown;
  }[];
  ts: number;
  /**
   * Seconds.
   */
  duration: number;
  agent_config?: {
    [k: string]: unknown | undefined;
  };
  agent_id: string;
  call_id: string;
  chars_used?: number;
  session_id: string;
  cost_breakdown?: CostItem[];
  voip?: {
    provider?: string;
    from?: string;
    to?: string;
  };
  recording?: {
    recording_url?: string;
  };
  metadata?: {
    [k: string]: unknown | undefined;
  };
  call_status:
    | 'user-ended'
    | 'api-ended'
    | 'voicemail-message'
    | 'voicemail-hangup'
    | 'agent-ended'
    | 'timeout'
    | 'error'
    | 'chat_completion';
  error_message?: string | null;
}
/**
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "ValidationErrorBody".
 */
export interface ValidationErrorBody {
  detail: {
    loc: (string | number)[];
    msg: string;
    type: string;
  }[];
}
/**
 * The error body of 401, 404 and other non-validation errors.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "ErrorMessageBody".
 */
export interface ErrorMessageBody {
  detail: string;
}
/**
 * One conversation: exactly one of scripted `turns` or a `simulate`d caller, optionally with checks on the call record (`expect`).
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "ConversationTest".
 */
export interface ConversationTest {
  /**
   * What the test shows, as it appears in reports (unique within the file); `--grep` matches it.
   */
  name: string;
  /**
   * A scripted conversation: each turn sends its `user` message (or none, for the agent's greeting) and checks the agent's reply.
   *
   * @minItems 1
   * @maxItems 100
   */
  turns?: [Turn, ...Turn[]];
  simulate?: SimulatedCaller;
  /**
   * Checks on the call record once the session has ended (`end_of_session: true`): tools called or not, the call status, a judgement of the whole transcript.
   *
   * @maxItems 50
   */
  expect?: CallCheck[];
  /**
   * How many times to run the conversation (default 1): language models vary, so a test may be judged on its pass rate. `--repeat` overrides it.
   */
  repeat?: number;
  /**
   * The fraction of runs that must pass (default 1.0: every run). With repeat: 5 and pass_rate: 0.8, four passing runs of five are enough.
   */
  pass_rate?: number;
}
/**
 * One exchange: the caller's message (none for the greeting) and the checks on the agent's reply.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "Turn".
 */
export interface Turn {
  /**
   * What the caller says. Leave it out for the first turn to check the agent's greeting (first_message).
   */
  user?: string;
  /**
   * Checks on the agent's reply to this turn; every one must hold.
   *
   * @maxItems 50
   */
  expect?: ReplyCheck[];
}
/**
 * One check on a reply: exactly one of contains, not_contains, equals, regex, judge.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "ReplyCheck".
 */
export interface ReplyCheck {
  /**
   * The reply contains this text, ignoring case ("acme" matches "Acme").
   */
  contains?: string;
  /**
   * The reply does not contain this text, ignoring case.
   */
  not_contains?: string;
  /**
   * The reply is exactly this text (case and spacing included; leading and trailing white space ignored).
   */
  equals?: string;
  regex?: Regex;
  judge?: Rubric;
}
/**
 * A language model plays the caller until the goal is reached, the agent ends the session, or max_turns replies have been exchanged.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "SimulatedCaller".
 */
export interface SimulatedCaller {
  /**
   * Who the caller is and how they talk, e.g. "A patient who wants a cleaning next Tuesday morning."
   */
  persona: string;
  /**
   * What the caller wants; the caller model says when it is reached, e.g. "A slot is booked."
   */
  goal: string;
  /**
   * At most this many caller messages (default 10).
   */
  max_turns?: number;
}
/**
 * A check on the call record after the session ended: tool_called (with optional args), tool_not_called, call_status or judge.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "CallCheck".
 */
export interface CallCheck {
  /**
   * The agent called this tool (by its name in the agent's tools) at least once; with `args`, at least one call matches them.
   */
  tool_called?: string;
  /**
   * With tool_called: the arguments a call must have. Each value is an exact value, `{regex: …}` or `{judge: …}`; arguments not listed are not checked.
   */
  args?: {
    [k: string]: ArgMatcher | undefined;
  };
  /**
   * The agent never called this tool.
   */
  tool_not_called?: string;
  /**
   * The call record's call_status, e.g. chat_completion (a chat session ended by voxform) or agent-ended.
   */
  call_status?: string;
  judge?: Rubric;
}
/**
 * An argument's expected value: an exact value (any JSON value, compared as JSON), or an object whose only key is `regex` (a Regex matched against the value as text) or `judge` (a Rubric the judge applies to the value).
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "ArgMatcher".
 */
export interface ArgMatcher {
  [k: string]: unknown | undefined;
}
/**
 * A voxform conversation test file (tests/** /*.test.yaml): conversations with one agent of the manifest and what its replies must satisfy. `voxform test` runs them against the configuration under review (desired), the live agent, or both. See docs/testing.md.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "TestFile".
 */
export interface TestFile {
  /**
   * The agent under test, by its local name in the manifest (the key under `agents:`), e.g. front-desk.
   */
  agent: string;
  /**
   * Session metadata sent with every request as `agent.metadata` (the same keys a call would carry, e.g. the caller's tier). Values are shown in reports: put no secret here.
   */
  metadata?: {
    [k: string]: unknown | undefined;
  };
  /**
   * Sent as `agent.include_metadata_in_prompt`: whether the service appends the metadata to the agent's prompt. Default: left to the service (off).
   */
  include_metadata_in_prompt?: boolean;
  /**
   * The tests of this file, run in parallel (up to --parallelism at once).
   *
   * @minItems 1
   * @maxItems 1000
   */
  tests: [ConversationTest, ...ConversationTest[]];
}
