// Perf tier: iptables inputs through the whole pipeline (properties.ts, harness.ts).
import { describe } from 'vitest';
import { textProperties } from './properties';

describe('iptables: hostile and mutated inputs through analyze, features, snapshot, graph, explain and trace', () => {
  textProperties('iptables', 1001);
});
