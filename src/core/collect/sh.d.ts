// The build bundles shell scripts as text (esbuild's text loader; a vitest plugin in the tests).
declare module '*.sh' {
  const text: string;
  export default text;
}
