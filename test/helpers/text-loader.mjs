// Vite plugin: `import text from './x.sh'` is the file's text, as esbuild's text loader makes it in the build.
/** @returns {import('vite').Plugin} */
export function shellText() {
  return {
    name: 'dataplane-shell-text',
    transform(code, id) {
      return id.endsWith('.sh') ? { code: `export default ${JSON.stringify(code)};`, map: null } : undefined;
    },
  };
}
