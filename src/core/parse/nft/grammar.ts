// Chevrotain grammar of one nft "unit": a command, a block header, a block property or a rule, as the
// builder cuts them out of the text at `;`, newlines and block braces (see parser.ts). Braces and parentheses
// inside a unit (anonymous sets, verdict maps, element lists) are matched here, so a unit may span lines.
//
// The grammar fixes the shape of the declarations (hooks, policies, set types, element lists, defines);
// statements are kept as an ordered list of items that the statement builder reads with nft's keyword
// tables, which is how nft itself disambiguates them.
import { CstParser, type CstNode, type IToken } from 'chevrotain';
import { releaseInputs } from '../pipeline';
import {
  allTokens,
  Atom,
  Assign,
  Colon,
  Comma,
  Define,
  Device,
  Devices,
  Dot,
  Elements,
  Flags,
  Hook,
  Identifier,
  Include,
  LBrace,
  LParen,
  Policy,
  Priority,
  RawPayload,
  RBrace,
  Redefine,
  RParen,
  StringTok,
  TypeKw,
  Typeof,
  Undefine,
  Variable,
} from './lexer';

export class NftUnitParser extends CstParser {
  constructor() {
    super(allTokens, { recoveryEnabled: false, maxLookahead: 1 });
    this.performSelfAnalysis();
  }

  /** A unit outside any block: include, define, or a command (`add rule …`, `table ip t`, `flush ruleset`). */
  public topUnit = this.RULE('topUnit', () => {
    this.OR({
      IGNORE_AMBIGUITIES: true,
      DEF: [{ ALT: () => this.SUBRULE(this.includeCommand) }, { ALT: () => this.SUBRULE(this.defineCommand) }, { ALT: () => this.SUBRULE(this.undefineCommand) }, { ALT: () => this.SUBRULE(this.items) }],
    });
  });

  /** A unit inside a chain block: hook declaration, policy, devices, include / define / undefine, or a rule. */
  public chainUnit = this.RULE('chainUnit', () => {
    this.OR({
      IGNORE_AMBIGUITIES: true,
      DEF: [
        { GATE: () => this.LA(3).tokenType === Hook, ALT: () => this.SUBRULE(this.hookSpec) },
        { ALT: () => this.SUBRULE(this.policySpec) },
        { ALT: () => this.SUBRULE(this.devicesSpec) },
        { ALT: () => this.SUBRULE(this.includeCommand) },
        { ALT: () => this.SUBRULE(this.defineCommand) },
        { ALT: () => this.SUBRULE(this.undefineCommand) },
        { ALT: () => this.SUBRULE2(this.items) },
      ],
    });
  });

  /** A unit inside a set or map block. */
  public setUnit = this.RULE('setUnit', () => {
    this.OR({
      IGNORE_AMBIGUITIES: true,
      DEF: [
        { ALT: () => this.SUBRULE(this.typeSpec) },
        { ALT: () => this.SUBRULE(this.flagsSpec) },
        { ALT: () => this.SUBRULE(this.elementsSpec) },
        { ALT: () => this.SUBRULE(this.includeCommand) },
        { ALT: () => this.SUBRULE(this.defineCommand) },
        { ALT: () => this.SUBRULE(this.undefineCommand) },
        { ALT: () => this.SUBRULE(this.items) },
      ],
    });
  });

  /** A unit inside a table, flowtable or object block (headers of nested blocks included). */
  public plainUnit = this.RULE('plainUnit', () => {
    this.OR({
      IGNORE_AMBIGUITIES: true,
      DEF: [
        { ALT: () => this.SUBRULE(this.flagsSpec) },
        { ALT: () => this.SUBRULE(this.devicesSpec) },
        { ALT: () => this.SUBRULE(this.includeCommand) },
        { ALT: () => this.SUBRULE(this.defineCommand) },
        { ALT: () => this.SUBRULE(this.undefineCommand) },
        { ALT: () => this.SUBRULE(this.items) },
      ],
    });
  });

  // include "file"
  private includeCommand = this.RULE('includeCommand', () => {
    this.CONSUME(Include);
    this.CONSUME(StringTok, { LABEL: 'path' });
  });

  // define NAME = value   /   redefine NAME = value
  private defineCommand = this.RULE('defineCommand', () => {
    this.OR([{ ALT: () => this.CONSUME(Define, { LABEL: 'keyword' }) }, { ALT: () => this.CONSUME(Redefine, { LABEL: 'keyword' }) }]);
    this.CONSUME(Identifier, { LABEL: 'name' });
    this.CONSUME(Assign);
    this.SUBRULE(this.items, { LABEL: 'value' });
  });

  private undefineCommand = this.RULE('undefineCommand', () => {
    this.CONSUME(Undefine);
    this.CONSUME(Identifier, { LABEL: 'name' });
  });

  // type filter hook input [device "eth0" | devices = { … }] priority 0
  private hookSpec = this.RULE('hookSpec', () => {
    this.CONSUME(TypeKw);
    this.CONSUME(Identifier, { LABEL: 'chainType' });
    this.CONSUME(Hook);
    this.CONSUME2(Identifier, { LABEL: 'hook' });
    this.OPTION(() => {
      this.OR([
        {
          ALT: () => {
            this.CONSUME(Device);
            this.OR2([{ ALT: () => this.CONSUME3(Identifier, { LABEL: 'device' }) }, { ALT: () => this.CONSUME(StringTok, { LABEL: 'device' }) }, { ALT: () => this.CONSUME(Variable, { LABEL: 'device' }) }]);
          },
        },
        {
          ALT: () => {
            this.CONSUME(Devices);
            this.CONSUME(Assign);
            this.OR3([{ ALT: () => this.SUBRULE(this.braceGroup, { LABEL: 'devices' }) }, { ALT: () => this.CONSUME2(Variable, { LABEL: 'devices' }) }]);
          },
        },
      ]);
    });
    this.OPTION2(() => {
      this.CONSUME(Priority);
      this.SUBRULE(this.items, { LABEL: 'priority' });
    });
  });

  // policy accept
  private policySpec = this.RULE('policySpec', () => {
    this.CONSUME(Policy);
    this.OR([{ ALT: () => this.CONSUME(Identifier, { LABEL: 'policy' }) }, { ALT: () => this.CONSUME(Variable, { LABEL: 'policy' }) }]);
  });

  // devices = { "eth0", "eth1" }
  private devicesSpec = this.RULE('devicesSpec', () => {
    this.CONSUME(Devices);
    this.CONSUME(Assign);
    this.OR([{ ALT: () => this.SUBRULE(this.braceGroup, { LABEL: 'devices' }) }, { ALT: () => this.CONSUME(Variable, { LABEL: 'devices' }) }]);
  });

  // type ipv4_addr . inet_service : verdict   /   typeof ip saddr . tcp dport : ip daddr
  private typeSpec = this.RULE('typeSpec', () => {
    this.OR([{ ALT: () => this.CONSUME(TypeKw, { LABEL: 'keyword' }) }, { ALT: () => this.CONSUME(Typeof, { LABEL: 'keyword' }) }]);
    this.SUBRULE(this.typeExpr, { LABEL: 'key' });
    this.OPTION(() => {
      this.CONSUME(Colon);
      this.OPTION2(() => this.CONSUME2(Typeof, { LABEL: 'dataTypeof' }));
      this.SUBRULE2(this.typeExpr, { LABEL: 'data' });
    });
  });

  private typeExpr = this.RULE('typeExpr', () => {
    this.AT_LEAST_ONE(() => {
      this.OR([
        { ALT: () => this.CONSUME(Identifier, { LABEL: 'item' }) },
        { ALT: () => this.CONSUME(Dot, { LABEL: 'item' }) },
        { ALT: () => this.CONSUME(RawPayload, { LABEL: 'item' }) },
        { ALT: () => this.CONSUME(StringTok, { LABEL: 'item' }) },
        { ALT: () => this.CONSUME(Variable, { LABEL: 'item' }) },
      ]);
    });
  });

  // flags interval,timeout
  private flagsSpec = this.RULE('flagsSpec', () => {
    this.CONSUME(Flags);
    this.AT_LEAST_ONE_SEP({
      SEP: Comma,
      DEF: () => this.OR([{ ALT: () => this.CONSUME(Identifier, { LABEL: 'flag' }) }, { ALT: () => this.CONSUME(Variable, { LABEL: 'flag' }) }]),
    });
  });

  // elements = { … }
  private elementsSpec = this.RULE('elementsSpec', () => {
    this.CONSUME(Elements);
    this.CONSUME(Assign);
    this.OR([{ ALT: () => this.SUBRULE(this.braceGroup, { LABEL: 'elements' }) }, { ALT: () => this.CONSUME(Variable, { LABEL: 'elements' }) }]);
  });

  /** An ordered list of atoms and groups; `item` keeps document order across token types. */
  public items = this.RULE('items', () => {
    this.MANY(() => this.atom());
  });

  public braceGroup = this.RULE('braceGroup', () => {
    this.CONSUME(LBrace);
    this.MANY(() => this.atom());
    this.CONSUME(RBrace);
  });

  private parenGroup = this.RULE('parenGroup', () => {
    this.CONSUME(LParen);
    this.MANY(() => this.atom());
    this.CONSUME(RParen);
  });

  private atom(): void {
    this.OR9([{ ALT: () => this.CONSUME9(Atom, { LABEL: 'item' }) }, { ALT: () => this.SUBRULE9(this.braceGroup, { LABEL: 'item' }) }, { ALT: () => this.SUBRULE9(this.parenGroup, { LABEL: 'item' }) }]);
  }
}

// Building a parser runs its grammar analysis (not at load: activation time, docs/performance.md#budgets). A parse
// takes one for its whole run and gives it back: two parses never share one, and the next parse reuses it.
const idleParsers: NftUnitParser[] = [];

/** A parser for one parse's exclusive use (give it back with giveBackUnitParser). */
export function takeUnitParser(): NftUnitParser {
  return idleParsers.pop() ?? new NftUnitParser();
}

/** The parser back, without its last input (tokens cut from the text would keep a closed document alive). */
export function giveBackUnitParser(parser: NftUnitParser): void {
  releaseInputs(parser);
  idleParsers.push(parser);
}

/** An element of a unit: a token, or a `{ … }` / `( … )` group. */
export type Item = IToken | CstNode;

export function isGroup(item: Item): item is CstNode {
  return (item as CstNode).children !== undefined;
}

/** The ordered items of an `items` node, a group, or a node with `item` children. */
export function itemsOf(node: CstNode | undefined): Item[] {
  return (node?.children.item as Item[] | undefined) ?? [];
}

/** The opening and closing tokens of a group. */
export function groupTokens(group: CstNode): { open: IToken; close: IToken } {
  const c = group.children;
  return { open: (c.LBrace ?? c.LParen)![0] as IToken, close: (c.RBrace ?? c.RParen)![0] as IToken };
}

export function isBraceGroup(item: Item): item is CstNode {
  return isGroup(item) && item.name === 'braceGroup';
}

export function isParenGroup(item: Item): item is CstNode {
  return isGroup(item) && item.name === 'parenGroup';
}
