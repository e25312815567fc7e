import fc from 'fast-check';
import { it } from 'vitest';
import { applyMutations, hostileMutation, ipvsCompanions, SEEDS, tokenLines } from './inputs';
import { newStats, runInput, type InputKind } from './harness';
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
for (const kind of (process.env.KINDS ?? 'iptables,nft-text,ipvsadm,ipset').split(',') as InputKind[]) {
  it(kind, () => {
    const comp = ipvsCompanions(kind);
    const seeds = SEEDS[kind].map((s) => s.split('\n'));
    const texts = fc.sample(fc.tuple(fc.nat(seeds.length - 1), fc.nat(), fc.integer({ min: 1, max: 40 }), fc.array(hostileMutation(kind), { minLength: 1, maxLength: 8 })).map(([s, st, c, ms]) => applyMutations(seeds[s].slice(st % seeds[s].length, (st % seeds[s].length) + c).join('\n'), ms)), { numRuns: 300, seed: 1 });
    const toks = fc.sample(tokenLines(kind), { numRuns: 300, seed: 1 });
    for (const [name, list] of [['slices', texts], ['tokens', toks]] as const) {
      const c0 = cpu(); const w0 = performance.now();
      for (const text of list) { try { runInput(kind, text, 5, newStats(), comp); } catch {} }
      console.log(kind, name, 'cpu/input', ((cpu() - c0) / list.length).toFixed(2), 'wall/input', ((performance.now() - w0) / list.length).toFixed(2));
    }
  });
}
