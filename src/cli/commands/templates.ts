/** `voxform templates`: each template with its description and variables, then how to use one. */
import { listTemplates, type Template, type TemplateVariable } from '../../templates/catalog.js';
import type { CommandContext } from '../context.js';
import { SPARE_AGENT_IDS, SPARE_AGENT_RANGE } from '../../emulator/spare-agents.js';
import { greatest } from '../../util/extremes.js';

/** `voxform templates` takes no options of its own. */
type TemplatesCommandOptions = Record<string, never>;

export async function run(_options: TemplatesCommandOptions, ctx: CommandContext): Promise<number> {
  const templates = await listTemplates();
  ctx.stdout.write(renderTemplates(templates));
  return 0;
}

function renderTemplates(templates: readonly Template[]): string {
  const lines: string[] = [];
  for (const template of templates) {
    lines.push(template.name, `  ${template.description}`);
    const width = greatest(template.variables.map((v) => v.name.length));
    for (const variable of template.variables) {
      lines.push(`    ${variable.name.padEnd(width)}  ${variable.required ? 'required' : 'optional'}  ${describe(variable)}`);
    }
    lines.push('');
  }
  lines.push(
    'Every template also needs agent_id: the id of the live agent the manifest manages',
    `(${SPARE_AGENT_RANGE} are spare agents of the embedded emulator, for --local).`,
    '',
    `Start a project:   voxform init --template receptionist --var business="Acme Dental" ... --var agent_id=${SPARE_AGENT_IDS[0]}`,
    'Use in a manifest: agents: { front-desk: { id: ..., template: receptionist, vars: { business: Acme Dental, ... } } }',
    '',
  );
  return lines.join('\n');
}

function describe(variable: TemplateVariable): string {
  if (variable.required) return variable.description;
  const value = typeof variable.default === 'string' ? variable.default : JSON.stringify(variable.default);
  return `${variable.description} (default: ${value})`;
}
