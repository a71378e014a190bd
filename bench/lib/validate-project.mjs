// The realistic project the validate and policy benchmarks run on: each agent with a 2 KB prompt
// file, a phone per agent, campaigns, knowledge files, defaults and a staging overlay, the agents in
// files of a thousand (a manifest file has a size limit).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const PROMPT_BYTES = 2_048;
const AGENTS_PER_FILE = 1_000;

function prompt(index) {
  const lines = [
    `# Agent ${index}: front desk of clinic ${index}`,
    '',
    'You are the receptionist of a busy dental practice. Greet callers warmly, find out what they need,',
    'and either answer from the knowledge base or book, move or cancel an appointment with the calendar tool.',
    'Never give medical advice; for pain, swelling or bleeding, transfer the call to the front desk team.',
    '',
  ];
  let text = lines.join('\n');
  for (let i = 1; text.length < PROMPT_BYTES; i++) {
    text += `- Rule ${i}: confirm the caller's name and date of birth before changing booking ${index}-${i}; repeat dates back.\n`;
  }
  return text.slice(0, PROMPT_BYTES - 1) + '\n';
}

function agentYaml(index) {
  const name = `clinic-${String(index).padStart(4, '0')}`;
  return `  ${name}:
    id: -OKbench${String(index).padStart(12, '0')}
    name: Clinic ${index} front desk
    config:
      prompt: { file: prompts/${name}.md }
      first_message: Thanks for calling clinic ${index}, this is Ava. How can I help you today?
      voice: { voice_id: ava-warm, model: turbo-v2 }
      flow:
        user_start_first: false
        interruption: { allowed: true, first_messsage: false }
        response_delay: ${200 + (index % 5) * 50}
        call_transfer:
          phone: "+1555${String(2_000_000 + index).padStart(7, '0')}"
          instruction: Transfer when the caller asks for a person or has a dental emergency.
          messages: [One moment, I'm connecting you with our team.]
        inactivity_handling: { idle_time: 10000, message: Are you still there? }
      llm: { temperature: 0.${index % 10} }
      session_timeout: { max_duration: 900000, max_idle: 30000, message: Goodbye! }
      session_data_webhook:
        url: https://hooks.example.com/voice/end-of-call/${index}
        headers: { x-hook-token: "\${env:HOOK_TOKEN:-local-dev-token}" }
      tools:
        - name: find_slots
          description: Find free appointment slots on a given day.
          webhook: https://api.example.com/calendar/${index}/slots
          method: GET
          timeout: 5000
          header: { authorization: "\${env:CALENDAR_TOKEN:-local-dev-calendar-token}" }
          params:
            - { name: date, type: string, required: true, description: Day in YYYY-MM-DD }
          messages: [Let me check the calendar.]
    knowledge: [faq-${index % 20}]
    ignore: [config.voice.settings]
`;
}

/** Writes the project: voxform.yaml, and the agents in files of AGENTS_PER_FILE (a manifest file has a size limit). */
export function writeProject(dir, agents) {
  mkdirSync(path.join(dir, 'prompts'));
  mkdirSync(path.join(dir, 'knowledge'));
  const parts = [
    '# yaml-language-server: $schema=./schemas/manifest.schema.json',
    'version: 1',
    'defaults:',
    '  config: { language: en-US, timezone: America/New_York, privacy_settings: { opt_out_data_collection: false } }',
  ];
  for (let first = 0; first < agents; first += AGENTS_PER_FILE) {
    const chunk = ['agents:'];
    for (let i = first; i < Math.min(agents, first + AGENTS_PER_FILE); i++) {
      chunk.push(agentYaml(i).trimEnd());
      writeFileSync(path.join(dir, 'prompts', `clinic-${String(i).padStart(4, '0')}.md`), prompt(i));
    }
    writeFileSync(path.join(dir, `agents-${String(first / AGENTS_PER_FILE).padStart(2, '0')}.yaml`), `${chunk.join('\n')}\n`);
  }
  parts.push('phones:');
  for (let i = 0; i < agents; i++) parts.push(`  "+1555${String(1_000_000 + i).padStart(7, '0')}": { agent: clinic-${String(i).padStart(4, '0')} }`);
  parts.push('campaigns:');
  for (let i = 0; i < 50; i++) parts.push(`  recall-${i}: { id: cmp_${i}, name: Recall ${i}, include_metadata_in_prompt: true, caller: "+1555${String(1_000_000 + i).padStart(7, '0')}" }`);
  parts.push('knowledge:');
  for (let i = 0; i < 20; i++) {
    parts.push(`  faq-${i}: { file: knowledge/faq-${i}.md, description: Opening hours and prices ${i} }`);
    writeFileSync(path.join(dir, 'knowledge', `faq-${i}.md`), `# FAQ ${i}\n\n${'Opening hours: 8 to 18. '.repeat(400)}\n`);
  }
  parts.push('credentials:', '  - { provider: openai, api_key: "${env:OPENAI_API_KEY:-local-dev-openai-key}" }');
  parts.push('environments:', '  staging:', '    agents:');
  for (let i = 0; i < 100; i++) parts.push(`      clinic-${String(i).padStart(4, '0')}: { id: -OKstaging${String(i).padStart(10, '0')} }`);
  writeFileSync(path.join(dir, 'voxform.yaml'), `${parts.join('\n')}\n`);
}
