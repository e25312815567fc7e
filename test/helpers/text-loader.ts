// Vite plugin: `import text from './x.sh'` is the file's text, as esbuild's text loader makes it in the build.
import type { Plugin } from 'vite';

export function shellText(): Plugin {
  return {
    name: 'dataplane-shell-text',
    transform(code, id) {
      return id.endsWith('.sh') ? { code: `export default ${JSON.stringify(code)};`, map: null } : undefined;
    },
  };
}
