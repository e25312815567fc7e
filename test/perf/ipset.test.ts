// Perf tier: ipset inputs through the whole pipeline (properties.ts, harness.ts).
import { describe } from 'vitest';
import { textProperties } from './properties';

describe('ipset: hostile and mutated inputs through analyze, features, snapshot, graph, explain and trace', () => {
  textProperties('ipset', 4001);
});
