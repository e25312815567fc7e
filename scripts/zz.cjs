require('esbuild').buildSync({ entryPoints: ['/work/main/src/core/language/iptables.ts'], bundle: true, platform: 'node', format: 'cjs', outfile: '/tmp/lang.js', logLevel: 'silent' });
const L = require('/tmp/lang.js');
const { parseIptables } = L;
const text = require('fs').readFileSync(process.argv[2], 'utf8');
let t0 = Date.now(); const lines = text.split('\n'); console.log('split', Date.now() - t0);
t0 = Date.now(); const a = L.analyzeIptables(text); console.log('analyze', Date.now() - t0, process.memoryUsage().heapUsed/1e6|0, 'MB');
