import { describe, expect, it } from 'vitest';
import { changedFields, sentConfigOf } from '../../src/conversations/recordings/sent-config.js';

describe('the configuration sent, as a recording keeps it', () => {
  it('holds a keyed hash per field, never a value; names the fields that changed; cannot tell without a record or under another key', () => {
    const recorded = sentConfigOf({ prompt: 'Be brief.', llm: { temperature: 0.4, model: 'a' }, tools: [{ name: 'x' }], ['__proto__']: 1 }, 'key-1');
    expect(JSON.stringify(recorded)).not.toContain('Be brief');
    expect(Object.keys(recorded.fields)).toEqual(['config.__proto__', 'config.llm.model', 'config.llm.temperature', 'config.prompt', 'config.tools']);
    const now = sentConfigOf({ prompt: 'Be brief.', llm: { temperature: 0.9, model: 'a' }, tools: [{ name: 'x' }], first_message: 'Hi' }, 'key-1');
    expect(changedFields(recorded, now)).toEqual(['config.__proto__', 'config.first_message', 'config.llm.temperature']);
    expect(changedFields(recorded, recorded)).toEqual([]);
    expect(changedFields(undefined, now)).toBeUndefined();
    expect(changedFields(recorded, sentConfigOf({ prompt: 'Be brief.' }, 'key-2'))).toBeUndefined();
  });
});
