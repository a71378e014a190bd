/**
 * The "Writing your own template" example of docs/templates.md, as a user follows it: its
 * template.yaml and prompt.md written to agent-templates/concierge/, then its "Try it" block run.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, runPrinted, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();

/** The first block fenced as `language` after `heading` in docs/templates.md. */
async function blockAfter(heading: string, language: string): Promise<string> {
  const text = await readFile(path.join(repoRoot, 'docs/templates.md'), 'utf8');
  const at = text.indexOf(heading);
  const match = at >= 0 ? new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``).exec(text.slice(at)) : null;
  if (!match?.[1]) throw new Error(`docs/templates.md has no ${language} block after "${heading}"`);
  return match[1];
}

describe('the template example of docs/templates.md', () => {
  it('init makes a project from it that validates, exit 0', async () => {
    const dir = await tempDir();
    const folder = path.join(dir, 'agent-templates/concierge');
    await mkdir(folder, { recursive: true });
    await writeFile(path.join(folder, 'template.yaml'), await blockAfter('## Writing your own template', 'yaml'));
    await writeFile(path.join(folder, 'prompt.md'), await blockAfter('## Writing your own template', 'markdown'));
    const tryIt = await blockAfter('Try it', 'sh');
    const result = await runPrinted(`set -e\n${tryIt}`, { cwd: dir });
    expect(result.code, `${tryIt}\n--- output ---\n${result.stdout}${result.stderr}`).toBe(0);
    expect(result.stdout + result.stderr).toMatch(/valid/i);
    // Its comments carry over as written: none may speak of the template's folder, which the project lacks.
    const manifest = await readFile(path.join(dir, 'try/voxform.yaml'), 'utf8');
    expect(manifest).toContain('prompt: { file: prompts/concierge.md }\n');
  });
});
