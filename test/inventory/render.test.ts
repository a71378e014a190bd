import { describe, expect, it } from 'vitest';
import { campaignSourcesNote, knowledgeSourcesNote, renderAgentsText, renderPhonesText } from '../../src/inventory/render.js';
import { displayWidth } from '../../src/util/display-width.js';

describe('the inventory table', () => {
  it('lines its columns up by the cells a terminal gives each name: a Japanese or emoji name takes two a character', () => {
    const agent = (id: string, name: string) => ({ id, name, exists: true, managed_by: null, environment: null, found_through: ['named' as const], phones: [] });
    const text = renderAgentsText({ format_version: 1, kind: 'agents', agents: [agent('ag_1', '受付'), agent('ag_2', 'Front desk 😀'), agent('ag_3', 'x')], sources: { manifest_agents: 0, phones: 0, calls_read: 0, more_calls: false } }, { filtered: true });
    const lines = text.split('\n').filter(Boolean);
    const managedColumn = lines.map((line) => displayWidth(line.slice(0, line.search(/MANAGED BY|unmanaged/))));
    expect(new Set(managedColumn).size).toBe(1);
  });

  it('cut to a terminal\'s width, a wide name is cut by its cells and the columns still line up', () => {
    const agent = (id: string, name: string) => ({ id, name, exists: true, managed_by: null, environment: null, found_through: ['named' as const], phones: [] });
    const report = { format_version: 1, kind: 'agents' as const, agents: [agent('ag_1', '受付'.repeat(20)), agent('ag_2', `Front desk ${'😀'.repeat(20)}`), agent('ag_3', 'x')], sources: { manifest_agents: 0, phones: 0, calls_read: 0, more_calls: false } };
    const whole = renderAgentsText(report, { filtered: true }).split('\n').filter(Boolean);
    const lines = renderAgentsText(report, { filtered: true, maxWidth: 60 }).split('\n').filter(Boolean);
    expect(Math.max(...whole.map(displayWidth))).toBeGreaterThan(60);
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(60);
    expect(lines[1]).toContain('…');
    const managedColumn = lines.map((line) => displayWidth(line.slice(0, line.search(/MANAGED BY|unmanaged/))));
    expect(new Set(managedColumn).size).toBe(1);
  });
});

describe('the note on where knowledge files were looked for', () => {
  it('agrees with the count of live agents: "1 live agent attaches", "2 live agents attach"', () => {
    const note = (agents: number) => knowledgeSourcesNote({ format_version: 1, kind: 'knowledge', files: [], sources: { manifest_files: 1, state: { workspace: 'production@URL', files: 1 }, agents_read: agents } });
    expect(note(1)).toContain("the files the manifests' 1 live agent attaches. ");
    expect(note(2)).toContain("the files the manifests' 2 live agents attach. ");
  });

  it('claims no count from a state that could not be read, for knowledge files and campaigns alike', () => {
    const problem = 'The state file bad-state.json is not JSON.';
    const knowledge = knowledgeSourcesNote({ format_version: 1, kind: 'knowledge', files: [], sources: { manifest_files: 1, state: { workspace: 'staging@URL', files: 0, problem }, agents_read: 1 } });
    expect(knowledge).toContain('the files the state records (workspace staging@URL, which could not be read), ');
    const campaigns = campaignSourcesNote({ format_version: 1, kind: 'campaigns', campaigns: [], sources: { manifest_campaigns: 1, state: { workspace: 'staging@URL', campaigns: 0, problem }, calls_read: 0, more_calls: false } });
    expect(campaigns).toContain('the campaigns the state records (workspace staging@URL, which could not be read), ');
    expect(campaigns).not.toContain('(0,');
  });
});

describe('the note on an environment whose state could not be read', () => {
  it('names it, the default environment in words, and says what the listing loses', () => {
    const phone = { number: '+15551230001', status: 'active', agent_id: null, agent_name: null, agent_exists: null, managed_by: null, environment: null };
    const unread_environments = [{ environment: 'default', problem: 'The state of workspace default@URL is not valid JSON.' }];
    const text = renderPhonesText({ format_version: 1, kind: 'phones', phones: [phone], sources: { state: { workspace: 'staging@URL', unread_environments } } });
    expect(text).toMatch(/^\+15551230001 +active +— +unmanaged\n\nThe state of the default environment could not be read, so no number is marked with the default environment: The state of workspace default@URL is not valid JSON\.\n$/m);
  });
});
