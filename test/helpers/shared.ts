import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/** ../shared/corpus beside the repository (present in CI and on developer machines; never copied in). */
export const CORPUS = resolve(__dirname, '../../../shared/corpus');
export const HAVE_CORPUS = existsSync(CORPUS);
export const NO_CORPUS_MESSAGE = `needs ../shared/corpus beside the repository (not found at ${CORPUS}); skipped`;
