import type { Plugin } from 'vite';
/** `import text from './x.sh'` is the file's text (esbuild's text loader in the build). */
export function shellText(): Plugin;
