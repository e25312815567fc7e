// Chevrotain grammar of one line of ipvsadm output or ipvsadm -S / -R input. The grammar tells the line
// kinds apart; the builder (parser.ts) reads the columns, whose meaning depends on the listing format.
import { CstParser, type CstNode, type IToken } from 'chevrotain';
import { allTokens, Arrow, Comment, ConnectionsHeader, Expire, Fwm, LongOption, Pro, Prot, Protocol, ShortOption, TimeoutHeader, VersionHeader, Word } from './lexer';

export class IpvsLineParser extends CstParser {
  constructor() {
    super(allTokens, { recoveryEnabled: false, maxLookahead: 3 });
    this.performSelfAnalysis();
  }

  public line = this.RULE('line', () => {
    this.OPTION(() => {
      this.OR([
        { ALT: () => this.CONSUME(Comment) },
        { ALT: () => this.SUBRULE(this.versionLine) },
        { ALT: () => this.SUBRULE(this.connectionsHeaderLine) },
        { ALT: () => this.SUBRULE(this.timeoutLine) },
        { ALT: () => this.SUBRULE(this.columnsLine) },
        { ALT: () => this.SUBRULE(this.connectionColumnsLine) },
        { ALT: () => this.SUBRULE(this.realServerLine) },
        { ALT: () => this.SUBRULE(this.connectionLine) },
        { ALT: () => this.SUBRULE(this.serviceLine) },
        { ALT: () => this.SUBRULE(this.fwmarkServiceLine) },
        { ALT: () => this.SUBRULE(this.commandLine) },
      ]);
    });
  });

  // IP Virtual Server version 1.2.1 (size=4096)
  private versionLine = this.RULE('versionLine', () => {
    this.CONSUME(VersionHeader);
    this.MANY(() => this.SUBRULE(this.value));
  });

  private connectionsHeaderLine = this.RULE('connectionsHeaderLine', () => {
    this.CONSUME(ConnectionsHeader);
  });

  // Timeout (tcp tcpfin udp): 900 120 300
  private timeoutLine = this.RULE('timeoutLine', () => {
    this.CONSUME(TimeoutHeader);
    this.MANY(() => this.SUBRULE(this.value));
  });

  // Prot LocalAddress:Port Scheduler Flags
  private columnsLine = this.RULE('columnsLine', () => {
    this.CONSUME(Prot);
    this.MANY(() => this.SUBRULE(this.value));
  });

  // pro expire state source virtual destination
  private connectionColumnsLine = this.RULE('connectionColumnsLine', () => {
    this.CONSUME(Pro);
    this.MANY(() => this.SUBRULE(this.value));
  });

  //   -> 10.244.1.5:8080  Masq 1 0 0      (also the `  -> RemoteAddress:Port …` title)
  private realServerLine = this.RULE('realServerLine', () => {
    this.CONSUME(Arrow);
    this.MANY(() => this.SUBRULE(this.value));
  });

  // TCP 14:59  ESTABLISHED 10.244.1.5:43210 10.96.0.1:443 192.168.0.1:6443
  private connectionLine = this.RULE('connectionLine', () => {
    this.OR([{ ALT: () => this.CONSUME(Protocol, { LABEL: 'proto' }) }, { ALT: () => this.CONSUME(Word, { LABEL: 'proto' }) }]);
    this.CONSUME(Expire);
    this.MANY(() => this.SUBRULE(this.value));
  });

  // TCP  10.96.0.10:53 rr persistent 10800
  private serviceLine = this.RULE('serviceLine', () => {
    this.CONSUME(Protocol);
    // The address: anything but an `expire` column, which makes the line a connection entry.
    this.OPTION(() => {
      this.OR([{ ALT: () => this.SUBRULE(this.plain) }, { ALT: () => this.CONSUME(LongOption, { LABEL: 'token' }) }, { ALT: () => this.CONSUME(ShortOption, { LABEL: 'token' }) }]);
      this.MANY(() => this.SUBRULE(this.value));
    });
  });

  // FWM  100 IPv6 rr
  private fwmarkServiceLine = this.RULE('fwmarkServiceLine', () => {
    this.CONSUME(Fwm);
    this.MANY(() => this.SUBRULE(this.value));
  });

  // -A -t 10.96.0.10:53 -s rr -p 10800     (the command is the first item; the builder checks its shape)
  private commandLine = this.RULE('commandLine', () => {
    this.AT_LEAST_ONE(() => this.SUBRULE(this.item));
  });

  private item = this.RULE('item', () => {
    this.OR([{ ALT: () => this.CONSUME(LongOption, { LABEL: 'option' }) }, { ALT: () => this.CONSUME(ShortOption, { LABEL: 'option' }) }]);
    this.MANY(() => this.SUBRULE(this.argument));
  });

  // Any word after an option (a scheduler `rr`, an address, a number …).
  private argument = this.RULE('argument', () => {
    this.OR([{ ALT: () => this.SUBRULE(this.plain) }, { ALT: () => this.CONSUME(Expire, { LABEL: 'token' }) }]);
  });

  private plain = this.RULE('plain', () => {
    this.OR([
      { ALT: () => this.CONSUME(Word, { LABEL: 'token' }) },
      { ALT: () => this.CONSUME(Protocol, { LABEL: 'token' }) },
      { ALT: () => this.CONSUME(Fwm, { LABEL: 'token' }) },
      { ALT: () => this.CONSUME(Prot, { LABEL: 'token' }) },
      { ALT: () => this.CONSUME(Pro, { LABEL: 'token' }) },
      { ALT: () => this.CONSUME(Arrow, { LABEL: 'token' }) },
      { ALT: () => this.CONSUME(Comment, { LABEL: 'token' }) },
    ]);
  });

  // Any token after a line's keyword, options included.
  private value = this.RULE('value', () => {
    this.OR([
      { ALT: () => this.SUBRULE(this.argument) },
      { ALT: () => this.CONSUME(LongOption, { LABEL: 'token' }) },
      { ALT: () => this.CONSUME(ShortOption, { LABEL: 'token' }) },
      { ALT: () => this.CONSUME(VersionHeader, { LABEL: 'token' }) },
      { ALT: () => this.CONSUME(ConnectionsHeader, { LABEL: 'token' }) },
      { ALT: () => this.CONSUME(TimeoutHeader, { LABEL: 'token' }) },
    ]);
  });
}

export type LineKind = 'comment' | 'version' | 'connectionsHeader' | 'timeout' | 'columns' | 'connectionColumns' | 'realServer' | 'connection' | 'service' | 'fwmarkService' | 'command';

const KIND_BY_RULE: Record<string, LineKind> = {
  versionLine: 'version',
  connectionsHeaderLine: 'connectionsHeader',
  timeoutLine: 'timeout',
  columnsLine: 'columns',
  connectionColumnsLine: 'connectionColumns',
  realServerLine: 'realServer',
  connectionLine: 'connection',
  serviceLine: 'service',
  fwmarkServiceLine: 'fwmarkService',
  commandLine: 'command',
};

export interface CommandItem {
  option: IToken;
  args: IToken[];
}

export interface LineCst {
  kind: LineKind;
  /** Every token of the line in order (the keyword first). */
  tokens: IToken[];
  /** For command lines: the options with their arguments. */
  items?: CommandItem[];
}

function collectTokens(node: CstNode, out: IToken[]): void {
  for (const list of Object.values(node.children)) {
    for (const child of list) {
      if ('image' in child) out.push(child as IToken);
      else collectTokens(child as CstNode, out);
    }
  }
}

function argumentToken(node: CstNode): IToken {
  const out: IToken[] = [];
  collectTokens(node, out);
  return out[0];
}

/** Flattens the CST of one line; undefined for an empty line. */
export function lineOf(cst: CstNode): LineCst | undefined {
  const c = cst.children as Record<string, (CstNode | IToken)[] | undefined>;
  if (c.Comment) return { kind: 'comment', tokens: c.Comment as IToken[] };
  for (const [rule, kind] of Object.entries(KIND_BY_RULE)) {
    const node = c[rule]?.[0] as CstNode | undefined;
    if (!node) continue;
    const tokens: IToken[] = [];
    collectTokens(node, tokens);
    tokens.sort((a, b) => a.startOffset - b.startOffset);
    if (kind === 'command') {
      const items = ((node.children.item ?? []) as CstNode[]).map((it) => ({
        option: (it.children.option as IToken[])[0],
        args: ((it.children.argument ?? []) as CstNode[]).map(argumentToken),
      }));
      return { kind, tokens, items };
    }
    return { kind, tokens };
  }
  return undefined;
}
