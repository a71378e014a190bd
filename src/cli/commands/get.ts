import { VoxformError } from '../../errors.js';
import { readLiveAgents, readLivePhones, type ManagedResources } from '../../inventory/inventory.js';
import { renderAgentsText, renderInventoryJson, renderPhonesText } from '../../inventory/render.js';
import { didYouMean } from '../../util/did-you-mean.js';
import { printable } from '../../util/printable.js';
import { resolveAgentArgument } from '../agent-argument.js';
import { resolveConnection } from '../connection.js';
import type { CommandContext, ConnectionOptions } from '../context.js';
import { manifestProject } from '../load-manifests.js';

export interface GetOptions extends ConnectionOptions {
  file?: string[];
  env?: string;
  format?: 'text' | 'json';
  /** `phones` or `agents` (commander checks), then an optional NAME. */
  args: string[];
}

/** `voxform get phones|agents [NAME]`: what is live, each entry marked with its manifest address or as unmanaged. */
export async function run(options: GetOptions, ctx: CommandContext): Promise<number> {
  const [kind, name] = options.args;
  const project = await manifestProject(options, ctx);
  const { client } = await resolveConnection({ ...options, manifest: project.service }, ctx);
  const managed: ManagedResources = { agents: project.names, phones: project.phones };
  const json = options.format === 'json';

  if (kind === 'phones') {
    const report = await readLivePhones(client, managed);
    if (name !== undefined) {
      const phones = report.phones.filter((phone) => phone.number === name);
      if (phones.length === 0) {
        const suggestion = didYouMean(name, report.phones.map((phone) => phone.number));
        throw new VoxformError('phone_unknown', `The service has no phone number "${printable(name)}".`, {
          hint: suggestion ? `Did you mean ${suggestion}?` : 'Numbers are E.164 (+, country code, number); `voxform get phones` lists them.',
        });
      }
      report.phones = phones;
    }
    ctx.stdout.write(json ? renderInventoryJson(report) : renderPhonesText(report));
    return 0;
  }

  // NAME: a manifest name, an agent id or an agent's name on the service, as `logs --agent` takes.
  const id = name === undefined ? undefined : await resolveAgentArgument(name, { manifests: project.names }, client, { label: 'agent' });
  const report = await readLiveAgents(client, managed, id === undefined ? [] : [id]);
  if (id !== undefined) report.agents = report.agents.filter((agent) => agent.id === id);
  ctx.stdout.write(json ? renderInventoryJson(report) : renderAgentsText(report, { filtered: id !== undefined }));
  return 0;
}
