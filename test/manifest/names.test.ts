/**
 * Resource names: src/manifest/names.ts against the manifest schema's own definitions (the loader
 * checks names with it, not with the schema: a name the two judged differently would go unchecked),
 * and each wrong name or resource reported once.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isLocalName, isPhoneNumber, LOCAL_NAME_MAX_LENGTH, LOCAL_NAME_PATTERN, PHONE_NUMBER_PATTERN } from '../../src/manifest/names.js';
import { validateAgainst } from '../../src/schema/validate.js';
import { repoRoot } from '../helpers/cli.js';
import { loadTree, summarize } from './helpers.js';

const schema = JSON.parse(readFileSync(path.join(repoRoot, 'schemas/manifest.schema.json'), 'utf8'));

describe('resource names', () => {
  it("are the schema's LocalName and PhoneNumber", () => {
    expect(LOCAL_NAME_PATTERN.source).toBe(schema.$defs.LocalName.pattern);
    expect(LOCAL_NAME_MAX_LENGTH).toBe(schema.$defs.LocalName.maxLength);
    expect(PHONE_NUMBER_PATTERN.source).toBe(schema.$defs.PhoneNumber.pattern);
  });

  const names = ['front-desk', 'a', 'A.b_c-9', '9lives', 'x'.repeat(100), 'x'.repeat(101), '-lead', '.hidden', 'front desk', 'ünï', '', '__proto__', 'a/b'];
  const numbers = ['+15551230001', '+1555123', '+1234567890123456', '+12345678901234567', '15551230001', '+05551230001', '+1 555 123 0001', ''];

  it('accept exactly what the schema accepts', () => {
    // Each name as the one key of a section: the schema's propertyNames judges it.
    const agentsAccepted = (name: string) => validateAgainst('Manifest', { version: 1, agents: { [name]: {} } }).length === 0;
    for (const name of names) expect(isLocalName(name), JSON.stringify(name)).toBe(agentsAccepted(name));
    const phonesAccepted = (number: string) => validateAgainst('Manifest', { version: 1, phones: { [number]: {} } }).length === 0;
    for (const number of numbers) expect(isPhoneNumber(number), JSON.stringify(number)).toBe(phonesAccepted(number));
  });
});

describe('each resource and name is reported once', () => {
  it('a resource that is not an object: where its value is', async () => {
    const result = await loadTree({
      'voxform.yaml': 'agents:\n  front-desk: 5\nphones:\n  "+15551230001": text\nenvironments:\n  staging:\n    campaigns:\n      spring: [1]\n',
    });
    expect(summarize(result)).toEqual([
      'voxform.yaml:2:15 type_mismatch agent "front-desk": expected an object (key: value pairs), found a number (5)',
      'voxform.yaml:4:19 type_mismatch phone "+15551230001": expected an object (key: value pairs), found a string ("text")',
      'voxform.yaml:8:7 environment_unknown_resource environment "staging" changes campaign "spring", which the manifest does not define',
      'voxform.yaml:8:15 type_mismatch campaign "spring": expected an object (key: value pairs), found a list',
    ]);
  });

  it('a name the schema refuses, of a resource or of an environment', async () => {
    const long = 'a'.repeat(101);
    const result = await loadTree({ 'voxform.yaml': `agents:\n  ${long}: { id: ag_1 }\n  "front desk": { id: ag_2 }\nenvironments:\n  ${long}: {}\n` });
    expect(summarize(result)).toEqual([
      `voxform.yaml:2:3 invalid_name agent name "${long}" is longer than 100 characters`,
      'voxform.yaml:3:3 invalid_name agent name "front desk" is not a valid name: use letters, digits, "-", "_" and ".", starting with a letter or digit',
      `voxform.yaml:5:3 invalid_name environment name "${long}" is longer than 100 characters`,
    ]);
  });

  it("a resource with a name the schema refuses is still checked, and references to it resolve", async () => {
    const result = await loadTree({
      'voxform.yaml': [
        'agents:',
        '  "front desk": { id: abc, config: { llm: { temperature: "hot" } } }',
        'phones:',
        '  "+1 555 123 0001": { agent: nobody, import: { provider: twilio, countyr: US } }',
        '  "+15551230002": { agent: front desk }',
      ].join('\n'),
    });
    expect(summarize(result)).toEqual([
      'voxform.yaml:2:3 invalid_name agent name "front desk" is not a valid name: use letters, digits, "-", "_" and ".", starting with a letter or digit',
      'voxform.yaml:2:58 type_mismatch llm.temperature: expected a number, found a string ("hot")',
      'voxform.yaml:4:3 invalid_name phone "+1 555 123 0001" is not an E.164 number such as "+15551230001"; did you mean "+15551230001"?',
      'voxform.yaml:4:31 reference_missing phone "+1 555 123 0001" is answered by agent "nobody", which the manifest does not define; for an agent outside the manifest write agent: { id: … }',
      'voxform.yaml:4:39 missing_field import of phone "+1 555 123 0001" needs "country"',
      'voxform.yaml:4:67 unknown_field unknown field "countyr" in import of phone "+1 555 123 0001"; did you mean "country"?',
    ]);
    expect(result.state).toBeUndefined();
  });
});
