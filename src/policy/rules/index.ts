/** The built-in rule pack (docs/policy.md lists every rule). */
import type { PolicyRule } from '../types.js';
import { BEHAVIOUR_RULES } from './behaviour.js';
import { CAMPAIGN_RULES } from './campaigns.js';
import { COST_RULES } from './cost.js';
import { PERSONAL_DATA_RULES } from './personal-data.js';
import { SECURITY_RULES } from './security.js';
import { SPEECH_RULES } from './speech.js';

export const BUILT_IN_RULES: readonly PolicyRule[] = [...PERSONAL_DATA_RULES, ...SPEECH_RULES, ...SECURITY_RULES, ...BEHAVIOUR_RULES, ...CAMPAIGN_RULES, ...COST_RULES];
