// What iptables-restore (both backends) and nft -c -f say about the dialect corners real files hold, as measured
// with iptables v1.8.9 (iptables-restore --test, iptables-legacy-restore --test) and nftables v1.0.6 (nft -c -f)
// in a throw-away network namespace. test/unit/dialect-corners.test.ts checks that the parser agrees with these
// verdicts; test/kernel/dialect-verdicts.test.ts asks the installed tools again (as root).

export interface RestoreCase {
  name: string;
  text: string;
  /** iptables-nft-restore --test and iptables-legacy-restore --test: accepted, or the 1-based line they fail on. */
  nft: 'ok' | number;
  legacy: 'ok' | number;
  /** What the parser must report, `LINE code` (errors and warnings only). */
  expect: string[];
}

export const RESTORE_CASES: RestoreCase[] = [
  { name: 'Istio: a space after the star', text: '* mangle\n:PREROUTING ACCEPT [0:0]\n-A PREROUTING -j ACCEPT\nCOMMIT\n', nft: 'ok', legacy: 'ok', expect: [] },
  { name: 'a tab after the star and after the name', text: '*\tnat\t\n:PREROUTING ACCEPT [0:0]\nCOMMIT\n', nft: 'ok', legacy: 'ok', expect: [] },
  { name: 'trailing space after the table name', text: '*nat \n:PREROUTING ACCEPT [0:0]\nCOMMIT\n', nft: 'ok', legacy: 'ok', expect: [] },
  { name: 'words after the table name', text: '*nat foo\n:PREROUTING ACCEPT [0:0]\nCOMMIT\n', nft: 'ok', legacy: 'ok', expect: [] },
  { name: 'no table name', text: '*\n:PREROUTING ACCEPT [0:0]\nCOMMIT\n', nft: 1, legacy: 1, expect: ['1 table-name-missing', '2 policy-on-user-chain'] },
  { name: 'a space after the colon', text: '*filter\n: FOO - [0:0]\nCOMMIT\n', nft: 'ok', legacy: 'ok', expect: [] },
  { name: 'tabs in a chain line', text: '*filter\n:FOO\t-\t[0:0]\nCOMMIT\n', nft: 'ok', legacy: 'ok', expect: [] },
  { name: 'words after the counters', text: '*filter\n:FOO - [0:0] extra\nCOMMIT\n', nft: 'ok', legacy: 'ok', expect: [] },
  { name: 'an indented chain declaration', text: '*filter\n :INPUT ACCEPT [0:0]\nCOMMIT\n', nft: 2, legacy: 2, expect: ['2 indented-declaration'] },
  { name: 'an indented table line', text: ' *filter\n:FOO - [0:0]\nCOMMIT\n', nft: 1, legacy: 1, expect: ['1 indented-declaration'] },
  { name: 'an indented rule', text: '*filter\n:FOO - [0:0]\n  -A FOO -j ACCEPT\nCOMMIT\n', nft: 'ok', legacy: 'ok', expect: [] },
  { name: 'a comment after COMMIT', text: '*nat\n:PREROUTING ACCEPT [0:0]\nCOMMIT # done\n', nft: 3, legacy: 3, expect: ['3 commit-trailing-text'] },
  { name: 'a tab after COMMIT', text: '*nat\n:PREROUTING ACCEPT [0:0]\nCOMMIT\t\n', nft: 3, legacy: 3, expect: ['3 commit-trailing-space'] },
  { name: 'a final COMMIT without a line break', text: '*nat\n:PREROUTING ACCEPT [0:0]\nCOMMIT', nft: 'ok', legacy: 3, expect: ['3 commit-without-newline'] },
  { name: 'CRLF line endings', text: '*filter\r\n:INPUT ACCEPT [0:0]\r\nCOMMIT\r\n', nft: 1, legacy: 1, expect: ['1 crlf-line-endings'] },
  { name: 'lone CR line endings', text: '*filter\r:INPUT ACCEPT [0:0]\rCOMMIT\r', nft: 1, legacy: 1, expect: ['1 cr-line-endings'] },
  { name: 'one CRLF, on a rule', text: '*filter\n:FOO - [0:0]\n-A FOO -j ACCEPT\r\nCOMMIT\n', nft: 3, legacy: 3, expect: ['3 crlf-line-endings'] },
  { name: 'one CRLF, swallowed by the counters', text: '*filter\n:FOO - [0:0]\r\nCOMMIT\n', nft: 'ok', legacy: 'ok', expect: [] },
];

export interface NftCase {
  name: string;
  text: string;
  /** nft -c -f: accepted, or the 1-based line it fails on. */
  nft: 'ok' | number;
  /** What the parser must report, `LINE severity code` (every severity but unreferenced hints). */
  expect: string[];
}

export const NFT_CASES: NftCase[] = [
  {
    name: 'include in a table (OpenWrt firewall4)',
    text: 'table inet fw4 {\n\tinclude "/etc/nftables.d/*.nft"\n\tchain input {\n\t\ttype filter hook input priority filter; policy accept;\n\t}\n}\n',
    nft: 'ok',
    expect: ['2 information include'],
  },
  {
    name: 'include in a chain',
    text: 'table inet fw4 {\n\tchain input {\n\t\tinclude "/etc/nftables.d/input/*.nft"\n\t\ttype filter hook input priority filter; policy accept;\n\t}\n}\n',
    nft: 'ok',
    expect: ['3 information include'],
  },
  { name: 'define in a table', text: 'table inet t {\n\tdefine X = 22\n\tchain input {\n\t\ttcp dport $X accept\n\t}\n}\n', nft: 'ok', expect: [] },
  { name: 'define and undefine in a chain', text: 'table inet t {\n\tchain input {\n\t\tdefine X = 22\n\t\ttcp dport $X accept\n\t\tundefine X\n\t}\n}\n', nft: 'ok', expect: [] },
  {
    name: 'xt match and xt target as nft lists iptables-nft rules',
    text: 'table ip filter {\n\tchain INPUT {\n\t\ttype filter hook input priority filter; policy accept;\n\t\tmeta l4proto tcp xt match "multiport" counter accept\n\t\txt target "TPROXY"\n\t}\n}\n',
    nft: 4,
    expect: ['4 hint xt-compat', '5 hint xt-compat'],
  },
  { name: 'xt match unquoted', text: 'table ip filter {\n\tchain INPUT {\n\t\tmeta l4proto tcp xt match multiport counter accept\n\t}\n}\n', nft: 3, expect: ['3 hint xt-compat'] },
];
