// nft text (`nft list ruleset` output and `nft -f` scripts) → the nft model (DESIGN §3): the reference reader
// (reference.ts) with its accelerators (accelerators/) reads the lines into the one nft sink (sink.ts), which makes
// the model. Problems are returned as diagnostics; nothing here throws (see pipeline.ts).
import type { NftRuleset } from '../../model/nft';
import { lineRange } from '../../model/range';
import { Symbols } from '../../model/symbols';
import { LineStarts } from '../lines';
import { acceleratorsOn, guardedParse, MAX_DIAGNOSTICS, type Accelerator, type ParseOptions } from '../pipeline';
import { tryLine as chainClose } from './accelerators/chain-close';
import { tryLine as declarationHeader } from './accelerators/declaration-header';
import { tryLine as elementList } from './accelerators/element-list';
import { tryLine as plainRule } from './accelerators/plain-rule';
import { tryLine as readAhead } from './accelerators/read-ahead';
import { tryLine as setProperty } from './accelerators/set-property';
import { NftTextBuilder } from './reference';
import type { NftTextSink } from './text-sink';

export { MAX_LINE_LENGTH } from './reference';
export { MAX_NESTING } from './units';
// Past the shared cap a file is clearly not this dialect; the rest are summarised in one.
export { MAX_DIAGNOSTICS };

/** The accelerators, tried in this order on each line (each checks the block it reads in). */
export const NFT_ACCELERATORS: readonly Accelerator<NftTextSink>[] = [readAhead, elementList, chainClose, declarationHeader, setProperty, plainRule];

/** `accelerators: 'off'` turns both speed-ups below off unless they are given: every line goes through Chevrotain. */
export interface NftTextOptions extends ParseOptions {
  /**
   * Use the fast paths (default): the accelerators, the hand-written line scanner and the direct building of plain
   * units, all giving exactly what the Chevrotain lexer and parser give. false runs everything through Chevrotain
   * (tests compare the two).
   */
  fastPath?: boolean;
  /**
   * Keep rules that can be read again from their line as LazyRules (default): their statements are made on
   * demand. false keeps every rule's statements (tests compare the two).
   */
  lazyRules?: boolean;
}

/** Parses nft text: `nft list ruleset` output or an `nft -f` script. Never throws. */
export function parseNft(text: string, options: NftTextOptions = {}): NftRuleset {
  return guardedParse('nft', text, (input) => {
    const on = acceleratorsOn(options);
    const fast = options.fastPath ?? on;
    // Everything the parse changes is the builder's (and its LazyRules'): parses may interleave.
    const builder = new NftTextBuilder(input, new LineStarts(input), fast, options.lazyRules ?? on);
    try {
      return builder.build(fast ? NFT_ACCELERATORS : []);
    } finally {
      // Also after a throw: the parser goes back without its last input (the tokens of a set's 200,000 elements
      // written over many lines were 90 MB kept until the next parse).
      builder.release();
    }
  });
}

export function emptyNftRuleset(format: 'text' | 'json', lineCount: number, problem: string): NftRuleset {
  return {
    dialect: 'nftables',
    format,
    tables: [],
    tableById: new Map(),
    diagnostics: [{ range: lineRange(0, 0, 0), severity: 'error', code: 'internal-error', message: problem }],
    symbols: new Symbols(),
    lineCount,
    defines: [],
    includes: [],
    commands: [],
    comments: [],
    ruleByLine: new Map(),
  };
}
