/* eslint-disable */
// DO NOT EDIT: generated from schemas/*.schema.json by `npm run gen` (scripts/gen-types.mjs).
// test/schema/types-fresh.test.ts fails when this file is stale.

/**
 * The service's regional gateway: us or eu. --region and VOXFORM_REGION override it.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "Region".
 */
export type Region = 'us' | 'eu';
/**
 * null clears this field: voxform removes it from the live agent's config (and it overrides defaults and templates).
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "Clear".
 */
export type Clear = null;
/**
 * A webhook: a URL, or a URL with headers sent with every request.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "ConfigWebhook".
 */
export type ConfigWebhook =
  | string
  | {
      /**
       * The webhook's URL (HTTPS advised).
       */
      url?: string | Clear;
      headers?: ConfigHeaders | Clear;
    };
/**
 * Empty: defines nothing.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "Empty".
 */
export type Empty = null;
/**
 * mandatory: a finding fails validate and plan (exit 1); advisory: shown, does not fail; off: not checked.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "PolicyLevel".
 */
export type PolicyLevel = 'mandatory' | 'advisory' | 'off';
/**
 * A rule id: lower-case words joined by '-'.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "PolicyRuleId".
 */
export type PolicyRuleId = string;
/**
 * A webhook: a URL, or a URL with headers sent with every request.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "WebhookTarget".
 */
export type WebhookTarget =
  | string
  | {
      /**
       * The webhook's URL (HTTPS advised).
       */
      url: string;
      headers?: SecretHeaders;
    };
/**
 * The agent's speech-synthesis voice, as the update operation takes it.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "VoiceUpdate".
 */
export type VoiceUpdate = VoiceCommon;
/**
 * The agent's speech-synthesis voice as the service returns it, with the vendor it chose.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "VoiceRead".
 */
export type VoiceRead = VoiceCommon & VoiceRead1;
/**
 * What the agent does when a call reaches a voicemail box.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "VoicemailUpdate".
 */
export type VoicemailUpdate = VoicemailCommon;
/**
 * What the agent does when a call reaches a voicemail box, with the action the service set.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "VoicemailRead".
 */
export type VoicemailRead = VoicemailCommon & VoicemailRead1;
/**
 * How the conversation flows: who speaks first, interruptions, voicemail, transfers, silences.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "FlowUpdate".
 */
export type FlowUpdate = FlowCommon & FlowUpdate1;
/**
 * How the conversation flows, as the service returns it.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "FlowRead".
 */
export type FlowRead = FlowCommon & FlowRead1;
/**
 * The language model's settings (the model itself is chosen by the service).
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "LlmUpdate".
 */
export type LlmUpdate = LlmCommon;
/**
 * The language model's settings as the service returns them, with the model.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "LlmRead".
 */
export type LlmRead = LlmCommon & LlmRead1;
/**
 * Speech recognition settings (the vendor is chosen by the service).
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "SpeechToTextUpdate".
 */
export type SpeechToTextUpdate = SpeechToTextCommon;
/**
 * Speech recognition settings as the service returns them, with the vendor.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "SpeechToTextRead".
 */
export type SpeechToTextRead = SpeechToTextCommon & SpeechToTextRead1;
/**
 * A webhook tool the agent may call during a conversation.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "ToolUpdate".
 */
export type ToolUpdate = ToolCommon;
/**
 * A webhook tool as the service returns it, with its response mode.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "ToolRead".
 */
export type ToolRead = ToolCommon & ToolRead1;
/**
 * A built-in function of the platform the agent may use.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "PlatformFunctionUpdate".
 */
export type PlatformFunctionUpdate = PlatformFunctionCommon;
/**
 * A built-in platform function as the service returns it, with its response mode.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "PlatformFunctionRead".
 */
export type PlatformFunctionRead = PlatformFunctionCommon & PlatformFunctionRead1;
/**
 * End-of-call webhook.
 */
export type WebhookTarget1 =
  | string
  | {
      /**
       * The webhook's URL (HTTPS advised).
       */
      url: string;
      headers?: SecretHeaders;
    };
/**
 * Prefetch webhook, called before a session.
 */
export type WebhookTarget2 =
  | string
  | {
      /**
       * The webhook's URL (HTTPS advised).
       */
      url: string;
      headers?: SecretHeaders;
    };
/**
 * AgentConfigCommon plus the update-shape sub-objects; open, so that the closed shapes below can add `prompt`.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "AgentConfigUpdateParts".
 */
export type AgentConfigUpdateParts = AgentConfigCommon & AgentConfigUpdateParts1;
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
 * What action endpoints answer: {success} as documented or, as some deployments do, the bare string "ok" (docs/service-api.md, Errors).
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "ActionResponse".
 */
export type ActionResponse = SuccessResponse | 'ok';
/**
 * Every phone number of the account (answer of GET /phones).
 *
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
      /**
       * The new file's id.
       */
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
 * An E.164 phone number: "+", the country code and the number, digits only (8 to 16 characters in all), such as +15551230001.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "PhoneNumber".
 */
export type PhoneNumber = string;
/**
 * An id the service gave (an agent's looks like -OKdqbqetEcM4ak369ym): any characters but spaces, line breaks and other control characters, and never "." or ".." (in a request's path, they would name another endpoint).
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "ServiceId".
 */
export type ServiceId = string;
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
   * The manifest format version: 1. Optional; when given it must be 1.
   */
  version?: 1;
  region?: Region;
  /**
   * The service's base URL, such as http://127.0.0.1:4010 for the emulator; overrides region. --base-url and VOXFORM_BASE_URL override it. May use ${env:…}.
   */
  base_url?: string;
  defaults?: Defaults | Empty;
  /**
   * Voice agents by local name (how phones and campaigns refer to them). Agents are adopted by id: the service cannot create them.
   */
  agents?:
    | {
        [k: string]: AgentSpec | undefined;
      }
    | Empty;
  /**
   * Phone numbers by E.164 number (+, country code and number, digits only), each with the agent that answers it.
   */
  phones?:
    | {
        [k: string]: PhoneSpec | undefined;
      }
    | Empty;
  /**
   * Outbound campaigns by local name, adopted by id.
   */
  campaigns?:
    | {
        [k: string]: CampaignSpec | undefined;
      }
    | Empty;
  /**
   * Knowledge-base documents by local name; agents attach them by that name.
   */
  knowledge?:
    | {
        [k: string]: KnowledgeSpec | undefined;
      }
    | Empty;
  /**
   * Third-party provider API keys (LLM, speech vendors), at most one per provider.
   */
  credentials?: CredentialSpec[] | Empty;
  /**
   * Overlays by name, chosen with --env NAME and deep-merged over everything above; checked even when not chosen.
   */
  environments?:
    | {
        [k: string]: EnvironmentSpec | undefined;
      }
    | Empty;
  policy?: Policy | Empty;
}
/**
 * Settings merged under every agent.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "Defaults".
 */
export interface Defaults {
  /**
   * Deep-merged under every agent's config: an agent's own value wins.
   */
  config?: AgentConfigSpec | Empty;
}
/**
 * The agent's AgentConfig in the update shape, any subset of it (docs/service-api.md, PUT /agents/{agent_id}). `prompt` may also be a file include; `null` anywhere clears that field.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "AgentConfigSpec".
 */
export interface AgentConfigSpec {
  /**
   * The system prompt: who the agent is and how it behaves. Inline text, or { file: prompts/NAME.md } read relative to the manifest.
   */
  prompt?: string | FileInclude | Clear;
  voice?: ConfigVoice | Clear;
  flow?: ConfigFlow | Clear;
  llm?: ConfigLlm | Clear;
  speech_to_text?: ConfigSpeechToText | Clear;
  /**
   * Webhook tools the agent may call during a conversation; the list replaces the agent's list.
   */
  tools?: ConfigTool[] | Clear;
  /**
   * Built-in functions of the platform the agent may use; the list replaces the agent's list.
   */
  platform_functions?: ConfigPlatformFunction[] | Clear;
  /**
   * What the agent says first.
   */
  first_message?: string | Clear;
  /**
   * App integrations the agent may use, with their credentials.
   */
  app_functions?:
    | {
        /**
         * The integration's name.
         */
        name?: string | Clear;
        /**
         * The integration's credentials. Secret.
         */
        credentials?:
          | {
              [k: string]: unknown | undefined;
            }
          | Clear;
      }[]
    | Clear;
  /**
   * The WebSocket URL of a language model of your own, used instead of the service's.
   */
  custom_llm_websocket?: string | Clear;
  /**
   * A language tag such as en-US.
   */
  language?: string | Clear;
  /**
   * Voice-activity detection threshold: how loud sound must be to count as speech.
   */
  vad_threshold?: number | Clear;
  /**
   * Limits on how long a session lasts.
   */
  session_timeout?:
    | {
        /**
         * Milliseconds.
         */
        max_duration?: number | Clear;
        /**
         * Milliseconds.
         */
        max_idle?: number | Clear;
        /**
         * What the agent says when a limit ends the session.
         */
        message?: string | Clear;
      }
    | Clear;
  /**
   * End-of-call webhook.
   */
  session_data_webhook?: ConfigWebhook | Clear;
  /**
   * What the service keeps of a conversation.
   */
  privacy_settings?:
    | {
        /**
         * Whether the conversation is left out of the service's data collection.
         */
        opt_out_data_collection?: boolean | Clear;
        /**
         * Whether the agent notices a callee asking not to be called again.
         */
        do_not_call_detection?: boolean | Clear;
      }
    | Clear;
  /**
   * Words speech recognition should expect.
   */
  custom_vocabulary?:
    | {
        /**
         * Keywords and their weights, free-form.
         */
        keywords?:
          | {
              [k: string]: unknown | undefined;
            }
          | Clear;
      }
    | Clear;
  /**
   * Prefetch webhook, called before a session.
   */
  extra_prompt_webhook?: ConfigWebhook | Clear;
  /**
   * Languages the agent may switch to during a conversation.
   */
  switch_language?:
    | {
        /**
         * Language tags such as en-US, es-ES.
         */
        languages?: string[] | Clear;
      }
    | Clear;
  /**
   * Documents the agent answers from.
   */
  knowledge_base?:
    | {
        /**
         * Ids of knowledge files (answers of POST /knowledge/create_file).
         */
        files?: string[] | Clear;
        /**
         * What the agent says while it searches the documents.
         */
        messages?: string[] | Clear;
      }
    | Clear;
  /**
   * Recording and background sound.
   */
  call_settings?:
    | {
        /**
         * Whether calls are recorded (the end-of-call record then has a recording URL).
         */
        enable_recording?: boolean | Clear;
        /**
         * A background sound played under the agent's voice.
         */
        background?:
          | {
              /**
               * The sound file's URL.
               */
              url?: string | Clear;
              /**
               * The sound's volume.
               */
              volume?: number | Clear;
            }
          | Clear;
      }
    | Clear;
  /**
   * Remembering callers across sessions.
   */
  memory?:
    | {
        /**
         * The metadata key that identifies a caller; empty for no memory.
         */
        user_identifier_key?: string | Clear;
      }
    | Clear;
  /**
   * The agent's time zone, an IANA name.
   */
  timezone?: string | Clear;
  /**
   * The agent's status.
   */
  status?: string | Clear;
}
/**
 * Text read from a file instead of written inline.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "FileInclude".
 */
export interface FileInclude {
  /**
   * Path of the file, relative to the YAML file that names it (a manifest or a template); UTF-8.
   */
  file?: string;
}
/**
 * The agent's speech-synthesis voice, as the update operation takes it.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "ConfigVoice".
 */
export interface ConfigVoice {
  /**
   * The vendor's voice identifier.
   */
  voice_id?: string | Clear;
  /**
   * The vendor's speech-synthesis model.
   */
  model?: string | Clear;
  /**
   * Free-form settings of the speech-synthesis vendor.
   */
  settings?:
    | {
        [k: string]: unknown | undefined;
      }
    | Clear;
}
/**
 * How the conversation flows: who speaks first, interruptions, voicemail, transfers, silences.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "ConfigFlow".
 */
export interface ConfigFlow {
  voicemail?: ConfigVoicemail | Clear;
  /**
   * Whether the caller speaks first (the agent waits) instead of the agent's first message.
   */
  user_start_first?: boolean | Clear;
  /**
   * Whether and how the caller may interrupt the agent.
   */
  interruption?:
    | {
        /**
         * Whether the caller may interrupt the agent while it speaks.
         */
        allowed?: boolean | Clear;
        /**
         * Whether the interrupted message stays in the conversation history.
         */
        keep_interruption_message?: boolean | Clear;
        /**
         * Spelled with three s, as the service spells it.
         */
        first_messsage?: boolean | Clear;
      }
    | Clear;
  /**
   * Delay before the agent answers, in milliseconds.
   */
  response_delay?: number | Clear;
  /**
   * Filler phrases the agent says when its answer takes a while.
   */
  auto_fill_responses?:
    | {
        /**
         * Milliseconds.
         */
        response_gap_threshold?: number | Clear;
        /**
         * The filler phrases, picked from in turn.
         */
        messages?: string[] | Clear;
      }
    | Clear;
  /**
   * Whether and when the agent may end the call itself.
   */
  agent_terminate_call?:
    | {
        /**
         * Whether the agent may end the call.
         */
        enabled?: boolean | Clear;
        /**
         * When the agent should end the call, for the language model.
         */
        instruction?: string | Clear;
        /**
         * What the agent says before hanging up.
         */
        messages?: string[] | Clear;
      }
    | Clear;
  /**
   * Transferring the call to a person.
   */
  call_transfer?:
    | {
        /**
         * The number calls are transferred to. An E.164 phone number: "+", the country code and the number, digits only (8 to 16 characters in all), such as +15551230001.
         */
        phone?: string | Clear;
        /**
         * Several transfer numbers; the language model picks one by its description.
         */
        phones?:
          | {
              /**
               * A transfer number. An E.164 phone number: "+", the country code and the number, digits only (8 to 16 characters in all), such as +15551230001.
               */
              phone?: string | Clear;
              /**
               * When to transfer to this number, for the language model.
               */
              description?: string | Clear;
            }[]
          | Clear;
        /**
         * When to transfer the call, for the language model.
         */
        instruction?: string | Clear;
        /**
         * What the agent says before transferring.
         */
        messages?: string[] | Clear;
      }
    | Clear;
  /**
   * What the agent does when the caller is silent.
   */
  inactivity_handling?:
    | {
        /**
         * Milliseconds.
         */
        idle_time?: number | Clear;
        /**
         * What the agent says after the silence.
         */
        message?: string | Clear;
      }
    | Clear;
  /**
   * Whether the agent may dial keypad tones (DTMF), e.g. to navigate a phone menu.
   */
  dtmf_dial?:
    | {
        /**
         * Whether the agent may dial keypad tones.
         */
        enabled?: boolean | Clear;
        /**
         * When and what to dial, for the language model.
         */
        instruction?: string | Clear;
      }
    | Clear;
}
/**
 * What the agent does when a call reaches a voicemail box.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "ConfigVoicemail".
 */
export interface ConfigVoicemail {
  /**
   * The message left on a voicemail box.
   */
  message?: string | Clear;
  /**
   * Whether the agent goes on talking when it hears a voice after detecting voicemail.
   */
  continue_on_voice_activity?: boolean | Clear;
  /**
   * Phrases that tell a voicemail greeting.
   */
  detection_phrases?: string[] | Clear;
}
/**
 * The language model's settings (the model itself is chosen by the service).
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "ConfigLlm".
 */
export interface ConfigLlm {
  /**
   * Sampling temperature of the language model, from 0 to 2: lower is more predictable.
   */
  temperature?: number | Clear;
  /**
   * How much of the conversation the language model sees.
   */
  history_settings?:
    | {
        /**
         * How many past messages the language model sees.
         */
        history_message_limit?: number | Clear;
        /**
         * How many past tool results the language model sees.
         */
        history_tool_result_limit?: number | Clear;
      }
    | Clear;
}
/**
 * Speech recognition settings (the vendor is chosen by the service).
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "ConfigSpeechToText".
 */
export interface ConfigSpeechToText {
  /**
   * Whether speech recognition detects and switches languages.
   */
  multilingual?: boolean | Clear;
  /**
   * The vendor's speech recognition model.
   */
  model?: string | Clear;
  /**
   * Whether background noise is removed before recognition.
   */
  denoise?: boolean | Clear;
  /**
   * Settings of the noise removal.
   */
  denoiser?:
    | {
        /**
         * Free-form settings of the noise removal.
         */
        settings?:
          | {
              [k: string]: unknown | undefined;
            }
          | Clear;
      }
    | Clear;
}
/**
 * A webhook tool the agent may call during a conversation.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "ConfigTool".
 */
export interface ConfigTool {
  /**
   * The tool's name, as the language model calls it.
   */
  name?: string | Clear;
  /**
   * What the tool does and when to use it, for the language model.
   */
  description?: string | Clear;
  /**
   * The tool's parameters.
   */
  params?: ConfigToolParam[] | Clear;
  /**
   * The URL the service calls to run the tool.
   */
  webhook?: string | Clear;
  header?: ConfigHeaders | Clear;
  /**
   * The HTTP method of the call.
   */
  method?: string | Clear;
  /**
   * How long the service waits for the tool, in milliseconds.
   */
  timeout?: number | Clear;
  /**
   * Whether the tool runs once the call has ended instead of during it.
   */
  run_after_call?: boolean | Clear;
  /**
   * What the agent says while the tool runs.
   */
  messages?: string[] | Clear;
  /**
   * Whether the tool runs only after the agent has said its message.
   */
  execute_after_message?: boolean | Clear;
  /**
   * Whether the session id is left out of the tool call.
   */
  exclude_session_id?: boolean | Clear;
  /**
   * Whether the session metadata is sent with the tool call.
   */
  include_metadata?: boolean | Clear;
}
/**
 * One parameter of a tool or platform function, as the language model sees it.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "ConfigToolParam".
 */
export interface ConfigToolParam {
  /**
   * The parameter's name.
   */
  name?: string | Clear;
  /**
   * Whether the language model must give this parameter.
   */
  required?: boolean | Clear;
  /**
   * The parameter's JSON type, such as string, number or boolean.
   */
  type?: string | Clear;
  /**
   * What the parameter means, for the language model.
   */
  description?: string | Clear;
}
/**
 * HTTP headers sent with a webhook or tool call; they usually carry tokens.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "ConfigHeaders".
 */
export interface ConfigHeaders {
  [k: string]: string | Clear | undefined;
}
/**
 * A built-in function of the platform the agent may use.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "ConfigPlatformFunction".
 */
export interface ConfigPlatformFunction {
  /**
   * The function's name.
   */
  name?: string | Clear;
  /**
   * What the function does and when to use it, for the language model.
   */
  description?: string | Clear;
  /**
   * The function's data: its one parameter.
   */
  data?:
    | {
        param?: ConfigToolParam | Clear;
      }
    | Clear;
  /**
   * Which built-in function this is.
   */
  type?: string | Clear;
  /**
   * The function's parameters.
   */
  params?: ConfigToolParam[] | Clear;
  /**
   * What the agent says while the function runs.
   */
  messages?: string[] | Clear;
}
/**
 * A live agent this manifest owns the fields of: its id, and the name and config fields it sets.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "AgentSpec".
 */
export interface AgentSpec {
  /**
   * The live agent's id, such as -OKdqbqetEcM4ak369ym. Agents are adopted, not created: required once templates and the environment are merged.
   */
  id?: string;
  /**
   * The agent's display name. Left alone when not given.
   */
  name?: string;
  /**
   * Start from the template of this name (voxform templates lists them): the template gives the base, this entry overrides it.
   */
  template?: string;
  /**
   * Values for the template's {{variables}}.
   */
  vars?: {
    [k: string]: string | number | boolean | undefined;
  };
  config?: AgentConfigSpec | Empty;
  /**
   * Local names of knowledge files attached to this agent; replaces the attached set. Left alone when not given.
   */
  knowledge?: string[];
  /**
   * Fields owned elsewhere (usually the dashboard): name, or config followed by dotted fields such as config.voice.settings. Never diffed, never sent.
   */
  ignore?: string[];
}
/**
 * A phone number of the account: the agent that answers it, and how to import it when the account lacks it.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "PhoneSpec".
 */
export interface PhoneSpec {
  /**
   * The agent answering this number: a local agent name, or { id } of an agent not in the manifest. Left alone when not given.
   */
  agent?:
    | string
    | {
        /**
         * The id of an agent the manifest does not define.
         */
        id?: string;
      };
  import?: PhoneImportSpec;
}
/**
 * How to import the number when the account does not have it yet (POST /phones/import). country, region, api_key and api_secret are required once the environment is merged.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "PhoneImportSpec".
 */
export interface PhoneImportSpec {
  /**
   * The telephony provider the number comes from (default twilio).
   */
  provider?: string;
  /**
   * The number's country, such as US.
   */
  country?: string;
  /**
   * The provider's region, such as us-west.
   */
  region?: string;
  /**
   * The provider account's key. Secret: write it as ${env:NAME} (a literal key is a warning).
   */
  api_key?: string;
  /**
   * The provider account's secret. Secret: write it as ${env:NAME}.
   */
  api_secret?: string;
  /**
   * The provider's application id, when the provider needs one; null for none.
   */
  app_id?: string | null;
}
/**
 * An outbound campaign, adopted by id.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "CampaignSpec".
 */
export interface CampaignSpec {
  /**
   * The live campaign's id. Required once the environment is merged.
   */
  id?: string;
  /**
   * The campaign's name.
   */
  name?: string;
  /**
   * Whether each call's metadata is added to the agent's prompt.
   */
  include_metadata_in_prompt?: boolean;
  /**
   * The number campaign calls come from: a phone of this manifest, in E.164 form ("+", the country code and the number, digits only, such as "+15551230001"); quote it.
   */
  caller?: string;
}
/**
 * A document for agents' knowledge bases; uploaded again only when its content changes.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "KnowledgeSpec".
 */
export interface KnowledgeSpec {
  /**
   * The document, relative to the manifest file that names it. Its type comes from the extension (.pdf, .txt, .md, .csv, .json, .html, .docx, …).
   */
  file?: string;
  /**
   * The file's name on the service; defaults to the file's base name.
   */
  name?: string;
  /**
   * What the document holds.
   */
  description?: string;
}
/**
 * A third-party provider's API key stored on the service (POST /user/credentials). The service never shows it back: voxform keeps a fingerprint in its state file.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "CredentialSpec".
 */
export interface CredentialSpec {
  /**
   * The vendor the key is for.
   */
  provider?: string;
  /**
   * The vendor's key. Secret: write it as ${env:NAME} (a literal key is a warning).
   */
  api_key?: string;
}
/**
 * An overlay chosen with --env NAME, deep-merged over the manifest. It may only change resources the manifest defines; their required fields may come from the base.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "EnvironmentSpec".
 */
export interface EnvironmentSpec {
  region?: Region;
  /**
   * Replaces base_url in this environment.
   */
  base_url?: string;
  defaults?: Defaults | Empty;
  /**
   * Changes to agents, by local name.
   */
  agents?:
    | {
        [k: string]: AgentSpec | undefined;
      }
    | Empty;
  /**
   * Changes to phones, by number.
   */
  phones?:
    | {
        [k: string]: PhoneSpec | undefined;
      }
    | Empty;
  /**
   * Changes to campaigns, by local name.
   */
  campaigns?:
    | {
        [k: string]: CampaignSpec | undefined;
      }
    | Empty;
  /**
   * Changes to knowledge files, by local name.
   */
  knowledge?:
    | {
        [k: string]: KnowledgeSpec | undefined;
      }
    | Empty;
  /**
   * Credentials merged by provider: an entry replaces the one of the same provider, or is added.
   */
  credentials?: CredentialSpec[] | Empty;
  /**
   * Letters, digits, '-', '_' and '.', starting with a letter or digit.
   */
  promote_from?: string;
  gates?: PromotionGates;
}
/**
 * What the source environment's evidence must show before `voxform promote` makes this environment run its configuration; every gate is optional (docs/promotion.md).
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "PromotionGates".
 */
export interface PromotionGates {
  /**
   * The last `voxform test --against live` run against the source environment, with the configuration it runs now, passed.
   */
  tests?: 'pass';
  /**
   * At least this many calls ran with the source's configuration.
   */
  min_calls?: number;
  /**
   * Metrics that must not be higher with the source's configuration than with the one before it: a 95% interval of the difference above zero refuses.
   */
  no_regression?: (
    'error_rate' | 'transfer_rate' | 'tool_failure_rate' | 'mean_duration_seconds' | 'mean_credits_per_call'
  )[];
  /**
   * How long the source's configuration has been deployed: a whole number from 1 to 999999 and m (minutes), h (hours) or d (days), such as 2h.
   */
  soak?: string;
}
/**
 * Policy as code (docs/policy.md): levels for the built-in rules, the team's own declarative rules, and waivers. Top level only: an environment cannot relax it. Nothing here is run as code.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "Policy".
 */
export interface Policy {
  /**
   * Levels of built-in rules by id (`voxform policy list` lists them).
   */
  rules?: {
    [k: string]: PolicyLevel | undefined;
  };
  /**
   * The team's own rules: a field path or glob and checks.
   *
   * @maxItems 200
   */
  custom?: PolicyCustomRule[];
  /**
   * Exceptions: one rule for one resource, with a reason, until a date. An expired waiver is a violation.
   *
   * @maxItems 500
   */
  waivers?: PolicyWaiver[];
}
/**
 * A declarative team rule: every value at `path` (in each resource of `resources`) must pass every check given.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "PolicyCustomRule".
 */
export interface PolicyCustomRule {
  id: PolicyRuleId;
  level?: PolicyLevel;
  /**
   * What the rule is for; shown with each finding.
   */
  description?: string;
  /**
   * How to fix a finding.
   */
  hint?: string;
  /**
   * Which resources the path is read in (default agents).
   */
  resources?: 'agents' | 'phones' | 'campaigns' | 'knowledge';
  /**
   * A dotted path in the resource as written in the manifest, `*` for any one key or list item: config.first_message, config.tools.*.description.
   */
  path: string;
  /**
   * A regular expression the value must match (run with a time budget).
   */
  pattern?: string;
  /**
   * A regular expression the value must not match (run with a time budget).
   */
  not_pattern?: string;
  /**
   * Most characters the value may have.
   */
  max_length?: number;
  /**
   * Most tokens (o200k_base) the value may have.
   */
  max_tokens?: number;
  /**
   * The path must be set.
   */
  required?: boolean;
  /**
   * The value must be one of these.
   *
   * @maxItems 100
   */
  one_of?: (string | number | boolean)[];
  /**
   * A JSON Schema the value must satisfy, with the keywords docs/policy.md lists (no pattern, format or $ref).
   */
  schema?: {};
}
/**
 * One rule waived for one resource until a date.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "PolicyWaiver".
 */
export interface PolicyWaiver {
  rule: PolicyRuleId;
  /**
   * The resource's address: agent.front-desk, phone.+15551230001, campaign.NAME, knowledge.NAME.
   */
  resource: string;
  /**
   * Why the exception is acceptable (shown in every plan comment).
   */
  reason: string;
  /**
   * The last day the waiver holds: a calendar date, YYYY-MM-DD (UTC); from the day after, it is a violation.
   */
  expires: string;
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
/**
 * One parameter of a tool or platform function, as the language model sees it.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "ToolParam".
 */
export interface ToolParam {
  /**
   * The parameter's name.
   */
  name?: string;
  /**
   * Whether the language model must give this parameter.
   */
  required?: boolean;
  /**
   * The parameter's JSON type, such as string, number or boolean.
   */
  type?: string;
  /**
   * What the parameter means, for the language model.
   */
  description?: string;
}
/**
 * The agent's speech-synthesis voice: the fields every shape has.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "VoiceCommon".
 */
export interface VoiceCommon {
  /**
   * The vendor's voice identifier.
   */
  voice_id?: string;
  /**
   * The vendor's speech-synthesis model.
   */
  model?: string;
  /**
   * Free-form settings of the speech-synthesis vendor.
   */
  settings?: {
    [k: string]: unknown | undefined;
  };
}
export interface VoiceRead1 {
  /**
   * Speech-synthesis vendor; set by the service.
   */
  provider?: string;
}
/**
 * What the agent does when a call reaches a voicemail box: the fields every shape has.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "VoicemailCommon".
 */
export interface VoicemailCommon {
  /**
   * The message left on a voicemail box.
   */
  message?: string;
  /**
   * Whether the agent goes on talking when it hears a voice after detecting voicemail.
   */
  continue_on_voice_activity?: boolean;
  /**
   * Phrases that tell a voicemail greeting.
   */
  detection_phrases?: string[];
}
export interface VoicemailRead1 {
  /**
   * What the agent does on voicemail: hang up or leave the message. Set by the service.
   */
  action?: string;
}
/**
 * How the conversation flows: who speaks first, interruptions, transfers, silences. Fields every shape has.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "FlowCommon".
 */
export interface FlowCommon {
  /**
   * Whether the caller speaks first (the agent waits) instead of the agent's first message.
   */
  user_start_first?: boolean;
  /**
   * Whether and how the caller may interrupt the agent.
   */
  interruption?: {
    /**
     * Whether the caller may interrupt the agent while it speaks.
     */
    allowed?: boolean;
    /**
     * Whether the interrupted message stays in the conversation history.
     */
    keep_interruption_message?: boolean;
    /**
     * Spelled with three s, as the service spells it.
     */
    first_messsage?: boolean;
  };
  /**
   * Delay before the agent answers, in milliseconds.
   */
  response_delay?: number;
  /**
   * Filler phrases the agent says when its answer takes a while.
   */
  auto_fill_responses?: {
    /**
     * Milliseconds.
     */
    response_gap_threshold?: number;
    /**
     * The filler phrases, picked from in turn.
     */
    messages?: string[];
  };
  /**
   * Whether and when the agent may end the call itself.
   */
  agent_terminate_call?: {
    /**
     * Whether the agent may end the call.
     */
    enabled?: boolean;
    /**
     * When the agent should end the call, for the language model.
     */
    instruction?: string;
    /**
     * What the agent says before hanging up.
     */
    messages?: string[];
  };
  /**
   * Transferring the call to a person.
   */
  call_transfer?: {
    /**
     * The number calls are transferred to. An E.164 phone number: "+", the country code and the number, digits only (8 to 16 characters in all), such as +15551230001.
     */
    phone?: string;
    /**
     * Several transfer numbers; the language model picks one by its description.
     */
    phones?: {
      /**
       * A transfer number. An E.164 phone number: "+", the country code and the number, digits only (8 to 16 characters in all), such as +15551230001.
       */
      phone?: string;
      /**
       * When to transfer to this number, for the language model.
       */
      description?: string;
    }[];
    /**
     * When to transfer the call, for the language model.
     */
    instruction?: string;
    /**
     * What the agent says before transferring.
     */
    messages?: string[];
  };
  /**
   * What the agent does when the caller is silent.
   */
  inactivity_handling?: {
    /**
     * Milliseconds.
     */
    idle_time?: number;
    /**
     * What the agent says after the silence.
     */
    message?: string;
  };
  /**
   * Whether the agent may dial keypad tones (DTMF), e.g. to navigate a phone menu.
   */
  dtmf_dial?: {
    /**
     * Whether the agent may dial keypad tones.
     */
    enabled?: boolean;
    /**
     * When and what to dial, for the language model.
     */
    instruction?: string;
  };
}
export interface FlowUpdate1 {
  voicemail?: VoicemailUpdate;
}
export interface FlowRead1 {
  voicemail?: VoicemailRead;
}
/**
 * The language model's settings: the fields every shape has.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "LlmCommon".
 */
export interface LlmCommon {
  /**
   * Sampling temperature of the language model, from 0 to 2: lower is more predictable.
   */
  temperature?: number;
  /**
   * How much of the conversation the language model sees.
   */
  history_settings?: {
    /**
     * How many past messages the language model sees.
     */
    history_message_limit?: number;
    /**
     * How many past tool results the language model sees.
     */
    history_tool_result_limit?: number;
  };
}
export interface LlmRead1 {
  /**
   * The language model. Set by the service.
   */
  model?: string;
}
/**
 * Speech recognition settings: the fields every shape has.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "SpeechToTextCommon".
 */
export interface SpeechToTextCommon {
  /**
   * Whether speech recognition detects and switches languages.
   */
  multilingual?: boolean;
  /**
   * The vendor's speech recognition model.
   */
  model?: string;
  /**
   * Whether background noise is removed before recognition.
   */
  denoise?: boolean;
  /**
   * Settings of the noise removal.
   */
  denoiser?: {
    /**
     * Free-form settings of the noise removal.
     */
    settings?: {
      [k: string]: unknown | undefined;
    };
  };
}
export interface SpeechToTextRead1 {
  /**
   * The speech recognition vendor (deepgram, gladia, talkscriber, …). Set by the service.
   */
  provider?: string;
}
/**
 * A webhook tool the agent may call during a conversation: the fields every shape has.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "ToolCommon".
 */
export interface ToolCommon {
  /**
   * The tool's name, as the language model calls it.
   */
  name?: string;
  /**
   * What the tool does and when to use it, for the language model.
   */
  description?: string;
  /**
   * The tool's parameters.
   */
  params?: ToolParam[];
  /**
   * The URL the service calls to run the tool.
   */
  webhook?: string;
  header?: SecretHeaders;
  /**
   * The HTTP method of the call.
   */
  method?: string;
  /**
   * How long the service waits for the tool, in milliseconds.
   */
  timeout?: number;
  /**
   * Whether the tool runs once the call has ended instead of during it.
   */
  run_after_call?: boolean;
  /**
   * What the agent says while the tool runs.
   */
  messages?: string[];
  /**
   * Whether the tool runs only after the agent has said its message.
   */
  execute_after_message?: boolean;
  /**
   * Whether the session id is left out of the tool call.
   */
  exclude_session_id?: boolean;
  /**
   * Whether the session metadata is sent with the tool call.
   */
  include_metadata?: boolean;
}
export interface ToolRead1 {
  /**
   * How strictly the agent follows the tool's answer. Set by the service.
   */
  response_mode?: string;
}
/**
 * A built-in function of the platform the agent may use: the fields every shape has.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "PlatformFunctionCommon".
 */
export interface PlatformFunctionCommon {
  /**
   * The function's name.
   */
  name?: string;
  /**
   * What the function does and when to use it, for the language model.
   */
  description?: string;
  /**
   * The function's data: its one parameter.
   */
  data?: {
    param?: ToolParam;
  };
  /**
   * Which built-in function this is.
   */
  type?: string;
  /**
   * The function's parameters.
   */
  params?: ToolParam[];
  /**
   * What the agent says while the function runs.
   */
  messages?: string[];
}
export interface PlatformFunctionRead1 {
  /**
   * How strictly the agent follows the function's answer. Set by the service.
   */
  response_mode?: string;
}
/**
 * The AgentConfig fields shared by every shape, except `prompt` (which the manifest widens to allow a file include) and the sub-objects whose read shape carries provider extras.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "AgentConfigCommon".
 */
export interface AgentConfigCommon {
  /**
   * What the agent says first.
   */
  first_message?: string;
  /**
   * App integrations the agent may use, with their credentials.
   */
  app_functions?: {
    /**
     * The integration's name.
     */
    name?: string;
    /**
     * The integration's credentials. Secret.
     */
    credentials?: {
      [k: string]: unknown | undefined;
    };
  }[];
  /**
   * The WebSocket URL of a language model of your own, used instead of the service's.
   */
  custom_llm_websocket?: string;
  /**
   * A language tag such as en-US.
   */
  language?: string;
  /**
   * Voice-activity detection threshold: how loud sound must be to count as speech.
   */
  vad_threshold?: number;
  /**
   * Limits on how long a session lasts.
   */
  session_timeout?: {
    /**
     * Milliseconds.
     */
    max_duration?: number;
    /**
     * Milliseconds.
     */
    max_idle?: number;
    /**
     * What the agent says when a limit ends the session.
     */
    message?: string;
  };
  session_data_webhook?: WebhookTarget1;
  /**
   * What the service keeps of a conversation.
   */
  privacy_settings?: {
    /**
     * Whether the conversation is left out of the service's data collection.
     */
    opt_out_data_collection?: boolean;
    /**
     * Whether the agent notices a callee asking not to be called again.
     */
    do_not_call_detection?: boolean;
  };
  /**
   * Words speech recognition should expect.
   */
  custom_vocabulary?: {
    /**
     * Keywords and their weights, free-form.
     */
    keywords?: {
      [k: string]: unknown | undefined;
    };
  };
  extra_prompt_webhook?: WebhookTarget2;
  /**
   * Languages the agent may switch to during a conversation.
   */
  switch_language?: {
    /**
     * Language tags such as en-US, es-ES.
     */
    languages?: string[];
  };
  /**
   * Documents the agent answers from.
   */
  knowledge_base?: {
    /**
     * Ids of knowledge files (answers of POST /knowledge/create_file).
     */
    files?: string[];
    /**
     * What the agent says while it searches the documents.
     */
    messages?: string[];
  };
  /**
   * Recording and background sound.
   */
  call_settings?: {
    /**
     * Whether calls are recorded (the end-of-call record then has a recording URL).
     */
    enable_recording?: boolean;
    /**
     * A background sound played under the agent's voice.
     */
    background?: {
      /**
       * The sound file's URL.
       */
      url?: string;
      /**
       * The sound's volume.
       */
      volume?: number;
    };
  };
  /**
   * Remembering callers across sessions.
   */
  memory?: {
    /**
     * The metadata key that identifies a caller; empty for no memory.
     */
    user_identifier_key?: string;
  };
  /**
   * The agent's time zone, an IANA name.
   */
  timezone?: string;
  /**
   * The agent's status.
   */
  status?: string;
}
export interface AgentConfigUpdateParts1 {
  voice?: VoiceUpdate;
  flow?: FlowUpdate;
  llm?: LlmUpdate;
  speech_to_text?: SpeechToTextUpdate;
  /**
   * Webhook tools the agent may call during a conversation; the list replaces the agent's list.
   */
  tools?: ToolUpdate[];
  /**
   * Built-in functions of the platform the agent may use; the list replaces the agent's list.
   */
  platform_functions?: PlatformFunctionUpdate[];
}
export interface AgentConfigUpdate1 {
  /**
   * The system prompt: who the agent is and how it behaves.
   */
  prompt?: string;
}
export interface AgentConfigRead1 {
  /**
   * The system prompt: who the agent is and how it behaves.
   */
  prompt?: string;
  voice?: VoiceRead;
  flow?: FlowRead;
  llm?: LlmRead;
  speech_to_text?: SpeechToTextRead;
  /**
   * Webhook tools the agent may call during a conversation; the list replaces the agent's list.
   */
  tools?: ToolRead[];
  /**
   * Built-in functions of the platform the agent may use; the list replaces the agent's list.
   */
  platform_functions?: PlatformFunctionRead[];
}
/**
 * A voice agent: its id, name and configuration (GET /agents/{agent_id}).
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "Agent".
 */
export interface Agent {
  /**
   * The agent's id, such as -OKdqbqetEcM4ak369ym.
   */
  id: string;
  /**
   * The agent's display name.
   */
  name: string;
  config: AgentConfigRead;
  /**
   * Unix seconds.
   */
  created_at?: number;
}
/**
 * The body of PUT /agents/{agent_id}.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "UpdateAgentRequest".
 */
export interface UpdateAgentRequest {
  /**
   * The agent's display name (replaces it).
   */
  name: string;
  config: AgentConfigUpdate;
}
/**
 * The body of POST /api_keys.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "CreateApiKeyRequest".
 */
export interface CreateApiKeyRequest {
  /**
   * The kind of key.
   */
  type: 'public' | 'private';
  /**
   * A name for the key, at most 100 characters.
   */
  name?: string | null;
}
/**
 * A new API key (answer of POST /api_keys); the key value is shown only here.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "CreatedApiKey".
 */
export interface CreatedApiKey {
  /**
   * The key's id (not the key).
   */
  id: string;
  /**
   * The kind of key.
   */
  type: 'public' | 'private';
  /**
   * The key's name, or null.
   */
  name?: string | null;
  /**
   * When the key was made, Unix seconds.
   */
  created_at?: number | null;
  /**
   * When the key was revoked, Unix seconds; null while it is valid.
   */
  revoked_at?: number | null;
  /**
   * The key's first characters, to recognise it later.
   */
  prefix: string;
  /**
   * Whether the key is of an older kind.
   */
  legacy: boolean;
  /**
   * Whether this is the account's default key.
   */
  is_default: boolean;
  /**
   * The key value, shown once at creation.
   */
  key: string;
}
/**
 * The body of POST /user/credentials: a third-party provider's key.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "SetCredentialRequest".
 */
export interface SetCredentialRequest {
  /**
   * The vendor the key is for, such as openai, elevenlabs or deepgram.
   */
  provider: string;
  /**
   * The vendor's API key. Secret: the service never shows it again.
   */
  api_key: string;
}
/**
 * The documented answer of an action: whether it worked.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "SuccessResponse".
 */
export interface SuccessResponse {
  /**
   * Whether the action worked.
   */
  success: boolean;
}
/**
 * An outbound calling campaign.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "Campaign".
 */
export interface Campaign {
  /**
   * The campaign's id.
   */
  id: string;
  /**
   * The campaign's name.
   */
  name?: string;
  /**
   * Where the campaign stands.
   */
  status?: string;
  /**
   * When the campaign was made, Unix seconds.
   */
  created_at?: number;
  /**
   * The caller phone number.
   */
  caller?: string;
  /**
   * Whether each call's metadata is added to the agent's prompt.
   */
  include_metadata_in_prompt?: boolean;
}
/**
 * The body of PUT /campaigns/{campaign_id}/info: the fields to change.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "EditCampaignInfoRequest".
 */
export interface EditCampaignInfoRequest {
  /**
   * The campaign's new name.
   */
  name?: string;
  /**
   * Whether each call's metadata is added to the agent's prompt.
   */
  include_metadata_in_prompt?: boolean;
}
/**
 * The body of POST /campaigns/{campaign_id}/set_caller.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "SetCallerRequest".
 */
export interface SetCallerRequest {
  /**
   * The number the campaign calls from: a phone of the account. An E.164 phone number: "+", the country code and the number, digits only (8 to 16 characters in all), such as +15551230001.
   */
  caller: string;
}
/**
 * A phone number of the account and the agent that answers it.
 *
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
  /**
   * The number's status, such as active.
   */
  status?: string;
  /**
   * The agent that answers the number.
   */
  agent_id?: string;
  agent_config_override?: AgentConfigRead;
  /**
   * Labels of the number.
   */
  tags?: string[];
}
/**
 * The body of POST /phones/{phone}/set_agent.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "SetPhoneAgentRequest".
 */
export interface SetPhoneAgentRequest {
  /**
   * The agent that answers the number.
   */
  agent_id: string;
}
/**
 * The body of POST /phones/import: a number of a telephony provider's account to bring into the service.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "ImportPhoneRequest".
 */
export interface ImportPhoneRequest {
  /**
   * The number's country, such as US.
   */
  country: string;
  /**
   * The number to import. An E.164 phone number: "+", the country code and the number, digits only (8 to 16 characters in all), such as +15551230001.
   */
  phone: string;
  /**
   * The provider's region, such as us-west or us-east.
   */
  region: string;
  /**
   * The telephony provider account's key. Secret.
   */
  api_key: string;
  /**
   * The telephony provider account's secret. Secret.
   */
  api_secret: string;
  /**
   * The telephony provider the number comes from.
   */
  provider?: string;
  /**
   * The provider's application id, when the provider needs one.
   */
  app_id?: string | null;
}
/**
 * One message of a conversation.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "ChatMessage".
 */
export interface ChatMessage {
  /**
   * Who said it: user or assistant.
   */
  role: string;
  /**
   * What was said.
   */
  content: string;
}
/**
 * Continue an earlier session: its id and the messages to start from.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "SessionContinuation".
 */
export interface SessionContinuation {
  /**
   * The earlier session to continue.
   */
  session_id?: string;
  /**
   * Messages the new session starts from.
   */
  messages?: ChatMessage[];
  /**
   * The metadata key that identifies the caller.
   */
  identifier_variable?: string;
}
/**
 * The body of POST /register_call: the agent and how to shape this call.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "RegisterCallRequest".
 */
export interface RegisterCallRequest {
  /**
   * The agent that takes the call.
   */
  agent_id: string;
  agent_config?: AgentConfigRead;
  /**
   * Key-value pairs of this call, sent to the webhooks.
   */
  metadata?: {
    [k: string]: unknown | undefined;
  };
  /**
   * Whether the metadata is added to the agent's prompt.
   */
  include_metadata_in_prompt?: boolean;
  /**
   * The caller's number. An E.164 phone number: "+", the country code and the number, digits only (8 to 16 characters in all), such as +15551230001.
   */
  from_phone?: string;
  /**
   * The called number. An E.164 phone number: "+", the country code and the number, digits only (8 to 16 characters in all), such as +15551230001.
   */
  to_phone?: string;
  session_continuation?: SessionContinuation;
}
/**
 * The answer of POST /register_call.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "RegisterCallResponse".
 */
export interface RegisterCallResponse {
  /**
   * The new call's id.
   */
  call_id: string;
  /**
   * The session's id.
   */
  session_id: string;
}
/**
 * The agent a SIP call or SIP session starts with (update shape of AgentConfig).
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "InitAgent".
 */
export interface InitAgent {
  /**
   * The agent that takes the call.
   */
  agent_id: string;
  agent_config?: AgentConfigUpdate;
  /**
   * Key-value pairs of this call, sent to the webhooks.
   */
  metadata?: {
    [k: string]: unknown | undefined;
  };
  /**
   * Whether the metadata is added to the agent's prompt.
   */
  include_metadata_in_prompt?: boolean;
  /**
   * The caller's number. An E.164 phone number: "+", the country code and the number, digits only (8 to 16 characters in all), such as +15551230001.
   */
  from_phone?: string;
  /**
   * The called number. An E.164 phone number: "+", the country code and the number, digits only (8 to 16 characters in all), such as +15551230001.
   */
  to_phone?: string;
  session_continuation?: SessionContinuation;
}
/**
 * The body of POST /register_sip_call (the fields of InitAgent).
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "RegisterSipCallRequest".
 */
export interface RegisterSipCallRequest {
  /**
   * The agent that takes the call.
   */
  agent_id: string;
  agent_config?: AgentConfigUpdate;
  /**
   * Key-value pairs of this call, sent to the webhooks.
   */
  metadata?: {
    [k: string]: unknown | undefined;
  };
  /**
   * Whether the metadata is added to the agent's prompt.
   */
  include_metadata_in_prompt?: boolean;
  /**
   * The caller's number. An E.164 phone number: "+", the country code and the number, digits only (8 to 16 characters in all), such as +15551230001.
   */
  from_phone?: string;
  /**
   * The called number. An E.164 phone number: "+", the country code and the number, digits only (8 to 16 characters in all), such as +15551230001.
   */
  to_phone?: string;
  session_continuation?: SessionContinuation;
}
/**
 * The answer of POST /register_sip_call.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "RegisterSipCallResponse".
 */
export interface RegisterSipCallResponse {
  /**
   * The new call's id.
   */
  call_id: string;
  /**
   * Where to send the SIP call: sip:<call_id>@<host>.
   */
  sip_uri?: string;
}
/**
 * The body of POST /sip.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "CreateSipRequest".
 */
export interface CreateSipRequest {
  init_agent: InitAgent;
  /**
   * The SIP region.
   */
  region?: string;
}
/**
 * The answer of POST /sip.
 *
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
 * The body of POST /chat/completions: a text conversation with an agent.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "ChatCompletionRequest".
 */
export interface ChatCompletionRequest {
  /**
   * The agent to talk with and how to shape the session.
   */
  agent: {
    /**
     * The agent to talk with.
     */
    agent_id: string;
    agent_config?: AgentConfigUpdate;
    /**
     * Key-value pairs of the session, sent to the webhooks.
     */
    metadata?: {
      [k: string]: unknown | undefined;
    };
    /**
     * Whether the metadata is added to the agent's prompt.
     */
    include_metadata_in_prompt?: boolean;
  };
  /**
   * The conversation so far, oldest first.
   */
  messages: ChatMessage[];
  /**
   * Whether this reply ends the session (the end-of-call webhook then fires).
   */
  end_of_session?: boolean;
}
/**
 * One Server-Sent Event of the chat completions stream (OpenAI chunk format).
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "ChatCompletionChunk".
 */
export interface ChatCompletionChunk {
  /**
   * The completion's id.
   */
  id?: string;
  /**
   * The event's kind: chat.completion.chunk.
   */
  object?: string;
  /**
   * The session this reply belongs to.
   */
  session_id?: string;
  /**
   * The reply's pieces; one choice.
   */
  choices: {
    /**
     * The choice's position (0).
     */
    index: number;
    /**
     * The next piece of the reply.
     */
    delta: {
      /**
       * Who speaks (assistant), on the first piece.
       */
      role?: string;
      /**
       * The next text of the reply.
       */
      content?: string;
    };
    /**
     * stop on the last piece, else null.
     */
    finish_reason?: string | null;
  }[];
}
/**
 * The body of POST /knowledge/generate_presigned_url.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "PresignedUrlRequest".
 */
export interface PresignedUrlRequest {
  /**
   * The file's name.
   */
  filename: string;
}
/**
 * Where and how to upload a knowledge file: a presigned multipart POST target.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "PresignedUrlResponse".
 */
export interface PresignedUrlResponse {
  /**
   * Where to POST the file (multipart/form-data).
   */
  url: string;
  /**
   * Form fields to send unchanged before the file; `key` is the object key for create_file.
   */
  fields: {
    [k: string]: string | undefined;
  };
}
/**
 * The body of POST /knowledge/create_file: an uploaded file to record in the knowledge base.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "KnowledgeFileRecord".
 */
export interface KnowledgeFileRecord {
  /**
   * The uploaded object's key (the `key` field of the upload target).
   */
  object_key: string;
  /**
   * What the file holds.
   */
  description?: string;
  /**
   * The file's name in the knowledge base.
   */
  name: string;
  /**
   * The file's MIME type, such as application/pdf.
   */
  file_type?: string;
  /**
   * The file's size in bytes.
   */
  size?: number;
}
/**
 * The body of POST /knowledge/set_agent_files.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "SetAgentFilesRequest".
 */
export interface SetAgentFilesRequest {
  /**
   * The agent whose knowledge files are set.
   */
  agent_id: string;
  /**
   * The knowledge file ids; replaces the agent's list.
   */
  files: string[];
  /**
   * What the agent says while it searches; left as they are when absent.
   */
  messages?: string[];
}
/**
 * A call record as GET /agents/{id}/call-histories returns it.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "CallHistoryRecord".
 */
export interface CallHistoryRecord {
  /**
   * The agent of the call.
   */
  agent_id?: string;
  /**
   * The config the session ran with.
   */
  agent_config?: {
    [k: string]: unknown | undefined;
  };
  /**
   * How long the call lasted, in seconds.
   */
  duration?: number;
  /**
   * Session start, Unix seconds: from 0 (1970-01-01T00:00:00Z) to 253402300799 (9999-12-31T23:59:59Z), the times voxform reads.
   */
  ts?: number;
  /**
   * The chat history as a JSON string.
   */
  chat?: string;
  /**
   * Characters processed in the session.
   */
  chars_used?: number;
  /**
   * The session's id.
   */
  session_id?: string;
  /**
   * The call's id.
   */
  call_id?: string;
  /**
   * What the session cost, part by part.
   */
  cost_breakdown?: CostItem[];
  /**
   * The telephony side: provider, from and to numbers.
   */
  voip?: {
    [k: string]: unknown | undefined;
  };
  /**
   * The call's recording, when recorded.
   */
  recording?: {
    [k: string]: unknown | undefined;
  };
  /**
   * The session's final metadata.
   */
  metadata?: {
    [k: string]: unknown | undefined;
  };
  /**
   * Tools and functions called during the session.
   */
  function_calls?: {
    [k: string]: unknown | undefined;
  }[];
  /**
   * How the call stands or ended, such as registered, in-progress, user-ended.
   */
  call_status?: string;
}
/**
 * What one part of a session cost.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "CostItem".
 */
export interface CostItem {
  /**
   * What was paid for: stt (speech recognition), tts (speech synthesis), llm.
   */
  type?: string;
  /**
   * The vendor.
   */
  provider?: string;
  /**
   * The cost in credits.
   */
  credit?: number;
}
export interface GlobalCallHistoryRecord1 {
  /**
   * The campaign that made the call, if any.
   */
  campaign_id?: string | null;
  /**
   * What went wrong, if anything.
   */
  error_message?: string | null;
  /**
   * Measurements of the call, free-form.
   */
  call_metrics?: {
    [k: string]: unknown | undefined;
  };
  /**
   * The telephony carrier's log of the call, free-form.
   */
  carrier_call_log?: {
    [k: string]: unknown | undefined;
  };
}
/**
 * The query of GET /agents/{agent_id}/call-histories.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "CallHistoriesQuery".
 */
export interface CallHistoriesQuery {
  /**
   * Cursor: only records with ts below this.
   */
  start_at?: number;
  /**
   * Records per page, 1 to 100 (default 20).
   */
  limit?: number;
}
/**
 * The answer of GET /agents/{agent_id}/call-histories: one page of records.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "CallHistoriesResponse".
 */
export interface CallHistoriesResponse {
  /**
   * The page's records, newest first.
   */
  items: CallHistoryRecord[];
  /**
   * Where the next page starts.
   */
  pagination?: {
    /**
     * Whether the page was read.
     */
    success?: boolean;
    /**
     * The start_at of the next page; absent or null on the last page.
     */
    next_cursor?: number | null;
  };
}
/**
 * The query of GET /call-logs: paging and filters, combined with AND.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "CallLogsQuery".
 */
export interface CallLogsQuery {
  /**
   * Records per page, 1 to 100.
   */
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
  /**
   * Only calls of this agent.
   */
  agent_id?: string;
  /**
   * Only calls of this status (case-insensitive).
   */
  call_status?: string;
  /**
   * Matched against the voip field.
   */
  phone_number?: string;
  /**
   * Only calls of this campaign.
   */
  campaign_id?: string;
}
/**
 * The answer of GET /call-logs: one page of records, newest first.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "CallLogsResponse".
 */
export interface CallLogsResponse {
  /**
   * The page's records, newest first.
   */
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
  /**
   * The new session's id.
   */
  session_id: string;
  /**
   * The agent of the session.
   */
  agent_id: string;
  /**
   * The caller's number, when the session is a call.
   */
  from?: string;
  /**
   * The called number, when the session is a call.
   */
  to?: string;
  [k: string]: string | undefined;
}
/**
 * What the prefetch webhook may answer.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "PrefetchWebhookResponse".
 */
export interface PrefetchWebhookResponse {
  /**
   * Metadata merged over the session's: existing keys updated, new keys added.
   */
  metadata?: {
    [k: string]: unknown | undefined;
  };
  /**
   * Text appended to the agent's system prompt for this session.
   */
  extra_prompt?: string;
}
/**
 * The JSON the service POSTs to the end-of-call webhook when a session ends.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "EndOfCallPayload".
 */
export interface EndOfCallPayload {
  /**
   * A JSON string of the chat history.
   */
  chat: string;
  /**
   * Tools and functions called during the session.
   */
  function_calls?: {
    /**
     * The function's name.
     */
    name?: string;
    /**
     * The parameters it was called with.
     */
    params?: {
      [k: string]: unknown | undefined;
    };
  }[];
  /**
   * When the session started, Unix seconds.
   */
  ts: number;
  /**
   * How long the session lasted, in whole seconds.
   */
  duration: number;
  /**
   * The config the session ran with.
   */
  agent_config?: {
    [k: string]: unknown | undefined;
  };
  /**
   * The agent of the session.
   */
  agent_id: string;
  /**
   * The call's id.
   */
  call_id: string;
  /**
   * Characters processed in the session.
   */
  chars_used?: number;
  /**
   * The session's id.
   */
  session_id: string;
  /**
   * What the session cost, part by part.
   */
  cost_breakdown?: CostItem[];
  /**
   * The telephony side of the call.
   */
  voip?: {
    /**
     * The telephony provider (sip for SIP calls, web for chats in the emulator).
     */
    provider?: string;
    /**
     * The caller's number.
     */
    from?: string;
    /**
     * The called number.
     */
    to?: string;
  };
  /**
   * The call's recording.
   */
  recording?: {
    /**
     * Where the recording can be downloaded; empty when not recorded.
     */
    recording_url?: string;
  };
  /**
   * The session's final metadata.
   */
  metadata?: {
    [k: string]: unknown | undefined;
  };
  /**
   * How the session ended.
   */
  call_status:
    | 'user-ended'
    | 'api-ended'
    | 'voicemail-message'
    | 'voicemail-hangup'
    | 'agent-ended'
    | 'timeout'
    | 'error'
    | 'chat_completion';
  /**
   * What went wrong, or null.
   */
  error_message?: string | null;
}
/**
 * The 422 answer: every problem of the request, FastAPI style.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "ValidationErrorBody".
 */
export interface ValidationErrorBody {
  /**
   * One entry per problem.
   */
  detail: {
    /**
     * Where the problem is: body, query or header, then the path to the value.
     */
    loc: (string | number)[];
    /**
     * What is wrong, in words.
     */
    msg: string;
    /**
     * The kind of problem, such as missing or extra_forbidden.
     */
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
  /**
   * What went wrong, in words.
   */
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
   * A scripted conversation: each turn sends its `user` message (or none, for the agent's greeting) and checks the agent's reply. At most 50 turns: each request carries the conversation so far, so what a test sends grows with the square of its turns.
   *
   * @minItems 1
   * @maxItems 50
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
   * How many times to run the conversation (default 1, at most 20): language models vary, so a test may be judged on its pass rate. `--repeat` (the operator's) overrides it.
   */
  repeat?: number;
  /**
   * The fraction of runs that must pass, above 0 and at most 1 (default 1.0: every run). With repeat: 5 and pass_rate: 0.8, four passing runs of five are enough. 0 is refused: a test no run needs to pass would pass whatever the agent says.
   */
  pass_rate?: number;
  /**
   * Tools answered with a fixed result instead of their webhook, by tool name: `{ find_slots: { returns: { slots: ["09:00"] } } }`. The config the test sends (`--against desired`) points each named tool at a mock that the emulator answers with `returns` and that no other service can reach, so the real webhook is never called. Checks on the calls (`tool_called`, `tool_calls`) still see them in the call record.
   */
  mock_tools?: {
    [k: string]: MockTool | undefined;
  };
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
 * A check on the call record after the session ended: tool_called (with optional args), tool_calls (the calls in order), tool_not_called, call_status or judge.
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
   * The tools the agent called, in order, are exactly these: each by name, with `args` checked as for tool_called (arguments not listed are not checked). `[]` means no tool was called.
   *
   * @maxItems 50
   */
  tool_calls?: {
    /**
     * The tool's name in the agent's tools.
     */
    name: string;
    /**
     * The arguments this call must have: exact values, `{regex: …}` or `{judge: …}`.
     */
    args?: {
      [k: string]: ArgMatcher | undefined;
    };
  }[];
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
 * A mocked tool: what every call of it answers.
 *
 * This interface was referenced by `Manifest`'s JSON-Schema
 * via the `definition` "MockTool".
 */
export interface MockTool {
  /**
   * The tool's answer, given to the agent's model as the tool's result: any JSON value (a string is given as it is).
   */
  returns: {
    [k: string]: unknown | undefined;
  };
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
