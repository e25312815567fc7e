// Perf tier: nft-text inputs through the whole pipeline (properties.ts, harness.ts).
import { describe } from 'vitest';
import { textProperties } from './properties';

describe('nft-text: hostile and mutated inputs through analyze, features, snapshot, graph, explain and trace', () => {
  textProperties('nft-text', 2001);
});
