/**
 * Where the package's templates are and what a template's file is called. Apart from the catalog
 * (catalog.ts), so that loading manifests, which only needs these names, does not load the YAML
 * library the catalog reads templates with into every `plan`'s start-up.
 */
import { fileURLToPath } from 'node:url';

/** The package's own templates; the same relative place from src/ (tests) and dist/ (the package). */
export const defaultTemplatesDir = fileURLToPath(new URL('../../templates/', import.meta.url));

export const TEMPLATE_FILE = 'template.yaml';
