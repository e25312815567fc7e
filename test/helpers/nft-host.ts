// A StatementHost for nft statement tests that records what it is told, in order.
import type { Range } from '../../src/core/model/range';
import type { StatementHost } from '../../src/core/parse/nft/statements';

export function recorder(line: string): { host: StatementHost; calls: unknown[] } {
  const calls: unknown[] = [];
  const host: StatementHost = {
    text: (r: Range) => line.slice(r.start.character, r.end.character),
    chainReference: (name, range, role) => void calls.push(['chain', name, range, role]),
    setReference: (name, range) => void calls.push(['set', name, range]),
    variable: (name, range) => void calls.push(['variable', name, range]),
    diag: (range, severity, code) => void calls.push(['diag', range, severity, code]),
  };
  return { host, calls };
}
