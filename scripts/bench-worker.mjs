// Builds and runs the analysis worker benchmark (scripts/bench-worker.ts) next to dist/worker.js.
import * as esbuild from 'esbuild';
import { spawnSync } from 'node:child_process';

await esbuild.build({ bundle: true, platform: 'node', format: 'cjs', target: 'node20', entryPoints: ['src/extension/worker.ts'], outfile: 'dist/worker.js', logLevel: 'warning' });
await esbuild.build({ bundle: true, platform: 'node', format: 'cjs', target: 'node20', entryPoints: ['scripts/bench-worker.ts'], outfile: 'dist/bench-worker.js', logLevel: 'warning' });
const r = spawnSync(process.execPath, ['dist/bench-worker.js', ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(r.status ?? 1);
