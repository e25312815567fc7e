// Chevrotain grammar of one line of ipset save / restore input or `ipset list` output. Member lines of a
// listing are parsed with their own entry rule (the builder knows when a `Members:` section is open).
import { CstParser, type CstNode, type IToken } from 'chevrotain';
import { allTokens, Command, Comment, ListKey, Word } from './lexer';

export class IpsetLineParser extends CstParser {
  constructor() {
    super(allTokens, { recoveryEnabled: false, maxLookahead: 2 });
    this.performSelfAnalysis();
  }

  public line = this.RULE('line', () => {
    this.OPTION(() => {
      this.OR([{ ALT: () => this.CONSUME(Comment) }, { ALT: () => this.SUBRULE(this.fieldLine) }, { ALT: () => this.SUBRULE(this.commandLine) }]);
    });
  });

  /** One member of an `ipset list` Members: section: `10.96.0.10,udp:53 timeout 120 comment "…"`. */
  public memberLine = this.RULE('memberLine', () => {
    this.AT_LEAST_ONE(() => this.SUBRULE(this.value));
  });

  // Name: KUBE-CLUSTER-IP   /   Header: family inet hashsize 1024 maxelem 65536
  private fieldLine = this.RULE('fieldLine', () => {
    this.CONSUME(ListKey);
    this.MANY(() => this.SUBRULE(this.value));
  });

  // create KUBE-CLUSTER-IP hash:ip,port family inet …   /   add KUBE-CLUSTER-IP 10.96.0.10,udp:53
  private commandLine = this.RULE('commandLine', () => {
    this.CONSUME(Command);
    this.MANY(() => this.SUBRULE(this.value));
  });

  private value = this.RULE('value', () => {
    this.OR([
      { ALT: () => this.CONSUME(Word, { LABEL: 'token' }) },
      { ALT: () => this.CONSUME(Command, { LABEL: 'token' }) },
      { ALT: () => this.CONSUME(ListKey, { LABEL: 'token' }) },
      { ALT: () => this.CONSUME(Comment, { LABEL: 'token' }) },
    ]);
  });
}

export type IpsetLineKind = 'comment' | 'field' | 'command' | 'member';

export interface IpsetLineCst {
  kind: IpsetLineKind;
  /** The keyword (Comment, ListKey or Command token), absent for members. */
  keyword?: IToken;
  values: IToken[];
}

function values(node: CstNode | undefined): IToken[] {
  if (!node) return [];
  return ((node.children.value ?? []) as CstNode[]).map((v) => (v.children.token as IToken[])[0]);
}

export function lineOf(cst: CstNode): IpsetLineCst | undefined {
  const c = cst.children as Record<string, (CstNode | IToken)[] | undefined>;
  if (c.Comment) return { kind: 'comment', keyword: c.Comment[0] as IToken, values: [] };
  const field = c.fieldLine?.[0] as CstNode | undefined;
  if (field) return { kind: 'field', keyword: (field.children.ListKey as IToken[])[0], values: values(field) };
  const command = c.commandLine?.[0] as CstNode | undefined;
  if (command) return { kind: 'command', keyword: (command.children.Command as IToken[])[0], values: values(command) };
  return undefined;
}

export function memberOf(cst: CstNode): IpsetLineCst {
  return { kind: 'member', values: values(cst) };
}
