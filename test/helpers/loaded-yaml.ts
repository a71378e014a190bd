import { DiagnosticList } from '../../src/manifest/diagnostics.js';
import { parseYaml } from '../../src/manifest/parse-yaml.js';
import { SourceRegistry } from '../../src/manifest/source.js';

/**
 * A manifest text as the loader reads its YAML: each document's value (merge keys applied, aliases
 * expanded) and the codes of the problems it reports. Two texts that read alike here mean the same
 * to every command.
 */
export async function loadedValues(text: string): Promise<{ values: unknown[]; problems: string[] }> {
  const diagnostics = new DiagnosticList();
  const { documents } = await parseYaml(new SourceRegistry('/p').forYaml('/p/voxform.yaml', text), diagnostics);
  // Through JSON: the values carry their source positions, which a new layout moves.
  return { values: JSON.parse(JSON.stringify(documents.map((doc) => doc.value))) as unknown[], problems: diagnostics.toList().map((d) => d.code) };
}
