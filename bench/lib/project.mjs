// The benchmarks' project: a manifest of N agents (prompt files included), phones bound to them
// and campaigns, and the emulator seed it differs from in every resource. Shared by bench/plan.mjs
// and bench/state-backend.mjs.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** `point`: { agents, phones, campaigns }. */
export function benchProject(point) {
  const agentId = (i) => `-OKbench${String(i).padStart(12, '0')}`;
  const phone = (i) => `+1555${String(1_000_000 + i).padStart(7, '0')}`;
  const API_KEY = 'benchPrivateKey00000000000000001';

  function liveConfig(i) {
    return {
      prompt: `You are agent ${i}. Old prompt.`,
      first_message: 'Hello.',
      voice: { provider: 'elevenlabs', voice_id: 'rachel', settings: { stability: 0.5 } },
      llm: { model: 'gpt-4o', temperature: 0.7 },
      flow: { response_delay: 500, voicemail: { action: 'hangup', message: 'Call back later.' } },
      language: 'en-US',
    };
  }

  /** The account before the manifest is applied: every agent, phone and campaign differs from it. */
  function buildSeed() {
    return {
      keys: [{ type: 'private', key: API_KEY }],
      agents: Array.from({ length: point.agents }, (_, i) => ({ id: agentId(i), name: `Agent ${i}`, created_at: 1_700_000_000, config: liveConfig(i) })),
      phones: Array.from({ length: point.phones }, (_, i) => ({ id: phone(i), create_at: 1_700_000_000, status: 'active', tags: [] })),
      campaigns: Array.from({ length: point.campaigns }, (_, i) => ({ id: `cmp_${i}`, name: `Campaign ${i}`, status: 'idle', created_at: 1_700_000_000, include_metadata_in_prompt: false })),
    };
  }

  async function writeProject(dir) {
    await mkdir(path.join(dir, 'prompts'), { recursive: true });
    const lines = ['version: 1', 'defaults:', '  config: { language: en-US, timezone: America/New_York }', 'agents:'];
    for (let i = 0; i < point.agents; i++) {
      const body = `# Agent ${i}\n${'Be brief, warm and clear. Confirm every number you hear. '.repeat(30)}\n`;
      await writeFile(path.join(dir, 'prompts', `agent-${i}.md`), body);
      lines.push(
        `  agent-${i}:`,
        `    id: "${agentId(i)}"`,
        `    name: Agent ${i}`,
        '    config:',
        `      prompt: { file: prompts/agent-${i}.md }`,
        `      first_message: Thanks for calling line ${i}!`,
        '      voice: { voice_id: ava }',
        '      flow: { response_delay: 300 }',
        '      llm: { temperature: 0.4 }',
      );
    }
    lines.push('phones:');
    for (let i = 0; i < point.phones; i++) lines.push(`  "${phone(i)}": { agent: agent-${i % point.agents} }`);
    if (point.campaigns > 0) lines.push('campaigns:');
    for (let i = 0; i < point.campaigns; i++) lines.push(`  campaign-${i}: { id: cmp_${i}, name: Spring outreach ${i}, include_metadata_in_prompt: true, caller: "${phone(i)}" }`);
    const manifest = `${lines.join('\n')}\n`;
    await writeFile(path.join(dir, 'voxform.yaml'), manifest);
    return Buffer.byteLength(manifest);
  }

  return { buildSeed, writeProject, API_KEY, agentId, phone };
}
