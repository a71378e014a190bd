import { describe, expect, test } from 'vitest';
import { LineCounter, parseDocument } from 'yaml';
import { locationOf, nodeAlong, nodeAtPlace } from '../../src/templates/yaml-place.js';

const text = 'description: T.\nvariables:\n  a:\nagent:\n  config:\n    tools:\n      - name: x\n        header: { k: v }\n';
const lineCounter = new LineCounter();
const document = parseDocument(text, { lineCounter });
const at = (node: ReturnType<typeof nodeAtPlace>) => locationOf('t.yaml', lineCounter, node);

describe('places in a template.yaml', () => {
  test('finds a value or its key exactly, through mappings and lists', () => {
    expect(at(nodeAtPlace(document, ['agent', 'config', 'tools', 0, 'header', 'k'], 'value'))).toEqual({ file: 't.yaml', line: 8, col: 22 });
    expect(at(nodeAtPlace(document, ['agent', 'config', 'tools', 0, 'header'], 'key'))).toEqual({ file: 't.yaml', line: 8, col: 9 });
    expect(nodeAtPlace(document, ['agent', 'config', 'voice'], 'value')).toBeUndefined();
  });

  test('answers a key without a value with the key', () => {
    expect(at(nodeAtPlace(document, ['variables', 'a'], 'value'))).toEqual({ file: 't.yaml', line: 3, col: 3 });
  });

  test('falls back to the deepest value along the path', () => {
    expect(at(nodeAlong(document, ['agent', 'config', 'voice', 'speed'], 'key'))).toEqual({ file: 't.yaml', line: 6, col: 5 });
    expect(at(nodeAlong(document, ['nothing'], 'value'))).toEqual({ file: 't.yaml', line: 1, col: 1 });
  });
});
