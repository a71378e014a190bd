/**
 * The loader's modules import in one direction: no circle, type-only imports included (a circle
 * such as parse-yaml ↔ parse-yaml-subset makes module order matter and hides a missing module).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/cli.js';

const folder = path.join(repoRoot, 'src/manifest');

function importsOf(file: string): string[] {
  const text = readFileSync(path.join(folder, file), 'utf8');
  return [...text.matchAll(/^(?:import|export)\b[^;]*?from '\.\/([\w-]+)\.js'/gm)].map((m) => `${m[1]}.ts`);
}

/** A circle of imports starting at `start`, or undefined. */
function circleFrom(start: string, graph: Map<string, string[]>): string[] | undefined {
  const walk = (file: string, trail: string[]): string[] | undefined => {
    for (const next of graph.get(file) ?? []) {
      if (next === start) return [...trail, next];
      if (trail.includes(next)) continue;
      const found = walk(next, [...trail, next]);
      if (found) return found;
    }
    return undefined;
  };
  return walk(start, [start]);
}

describe('src/manifest imports', () => {
  it('form no circle', () => {
    const files = readdirSync(folder).filter((f) => f.endsWith('.ts'));
    const graph = new Map(files.map((f) => [f, importsOf(f)]));
    expect(graph.get('parse-yaml.ts')).toContain('parse-yaml-subset.ts');
    const circles = files.map((f) => circleFrom(f, graph)).filter((c): c is string[] => c !== undefined).map((c) => c.join(' → '));
    expect(circles).toEqual([]);
  });
});
