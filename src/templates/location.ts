/** Where the package's templates are: apart from the catalog, so loading manifests does not load the yaml library. */
import { fileURLToPath } from 'node:url';

/** The package's own templates; the same relative place from src/ (tests) and dist/ (the package). */
export const defaultTemplatesDir = fileURLToPath(new URL('../../templates/', import.meta.url));

export const TEMPLATE_FILE = 'template.yaml';
