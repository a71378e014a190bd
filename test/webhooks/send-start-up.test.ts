/**
 * `webhook send --agent` loads manifests, and its whole process has a goal of its own
 * (docs/webhooks.md): the manifest loader must not load the YAML library, which only the template
 * catalog needs, so the loader takes the templates' location from src/templates/location.ts rather
 * than from the catalog. `--agent` loads the loader on demand, through src/cli/project.ts
 * (src/cli/webhook-agent.ts), so the graph checked is the command's and that module's.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/cli.js';
import { importGraph } from '../helpers/import-graph.js';

const src = path.join(repoRoot, 'src');

function agentSendGraph(): { modules: Set<string>; packages: Set<string> } {
  const command = importGraph(path.join(src, 'cli/commands/webhook-send.ts'));
  const onDemand = importGraph(path.join(src, 'cli/project.ts'));
  return { modules: new Set([...command.modules, ...onDemand.modules]), packages: new Set([...command.packages, ...onDemand.packages]) };
}

describe('webhook send start-up imports', () => {
  it('--agent loads the manifest loader but neither the YAML library nor the template catalog', () => {
    const { modules, packages } = agentSendGraph();
    // The graph is the real one: it reaches the manifest loader, which reads the agent's headers.
    expect(modules).toContain(path.join(src, 'manifest/load.ts'));
    expect(modules).not.toContain(path.join(src, 'templates/catalog.ts'));
    expect([...packages].filter((name) => name === 'yaml')).toEqual([]);
  });

  it('the template commands still load the catalog and the library (the check above can fail)', () => {
    const { modules, packages } = importGraph(path.join(src, 'cli/commands/init.ts'));
    expect(modules).toContain(path.join(src, 'templates/catalog.ts'));
    expect(packages).toContain('yaml');
  });
});
