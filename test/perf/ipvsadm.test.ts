// Perf tier: ipvsadm inputs through the whole pipeline (properties.ts, harness.ts).
import { describe } from 'vitest';
import { textProperties } from './properties';

describe('ipvsadm: hostile and mutated inputs through analyze, features, snapshot, graph, explain and trace', () => {
  textProperties('ipvsadm', 3001);
});
