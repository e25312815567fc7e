// Dumps shared in issues and forums are anonymised by hand (`xx:xx:xx:xx:xx:xx`, `a.b.c.d`, `<IP>`, `X.X.X.X`,
// `10.x.x.x`): one grouped warning says so, instead of an error per occurrence, and the rest of each line is read.
import { describe, expect, it } from 'vitest';
import { parseIptables } from '../../src/core/parse/iptables/parser';
import { parseNft } from '../../src/core/parse/nft/parser';
import { isPlaceholder, placeholderIn } from '../../src/core/parse/placeholders';

describe('anonymised placeholders', () => {
  it('recognises the usual placeholders, and no real address or name', () => {
    for (const w of [
      'xx:xx:xx:xx:xx:xx',
      'XX:XX:XX:XX:XX:XX',
      'a.b.c.d',
      '<IP>',
      '<POD_IP>/32',
      'X.X.X.X',
      '10.x.x.x',
      '10.x.x.x/8',
      '1.2.3.X',
      '***.***.***.***',
      'XXX.XXX.XXX.XXX/32',
      'xxxx:xxxx::1',
      '[IP]',
      '<IP>:8080',
      'x.x.x.x:80',
    ])
      expect(isPlaceholder(w), w).toBe(true);
    for (const w of ['10.0.0.1', '10.0.0.0/8', 'aa:bb:cc:dd:ee:ff', 'fe80::1', 'KUBE-SVC-X', 'foo.bar.baz.com', 'abc.def.ghi.com', '<', 'tcp', '[::1]:80', '1.2.3.4:80', 'x']) expect(isPlaceholder(w), w).toBe(false);
    expect(placeholderIn('\t\tip daddr <IP> accept')).toEqual({ start: 11, end: 15 });
    expect(placeholderIn('ip daddr 10.0.0.1 accept')).toBeUndefined();
  });

  it('iptables: a thousand placeholders are one warning at the first, and the rules are still read', () => {
    const rules = Array.from({ length: 1000 }, (_, k) => (k % 2 ? `-A KUBE-FW -s 10.x.x.x/32 -m mac --mac-source xx:xx:xx:xx:xx:xx -j KUBE-MARK-DROP` : `-A KUBE-FW -d <IP>/32 -p tcp -m tcp --dport ${k} -j ACCEPT`));
    const text = `*filter\n:KUBE-FW - [0:0]\n:KUBE-MARK-DROP - [0:0]\n:INPUT ACCEPT [0:0]\n-A INPUT -j KUBE-FW\n${rules.join('\n')}\n-A KUBE-FW -s 10.0.0.0/33 -j ACCEPT\nCOMMIT\n`;
    for (const mode of ['scan', 'chevrotain'] as const) {
      const r = parseIptables(text, { mode });
      const problems = r.diagnostics.filter((d) => d.severity === 'error' || d.severity === 'warning');
      expect(
        problems.map((d) => d.code),
        mode,
      ).toEqual(['bad-address', 'anonymised-placeholders']);
      const grouped = problems[1];
      expect(grouped.message).toMatch(/^1500 anonymised placeholders .* first at 6:15; the rest of each line is read\.$/);
      expect(grouped.range).toMatchObject({ start: { line: 5, character: 14 } });
      const table = r.tables[0];
      expect(table.chainByName.get('KUBE-FW')?.rules.length).toBe(1001);
      expect(table.rules.filter((x) => x.targetName === 'KUBE-MARK-DROP').length).toBe(500);
    }
  });

  it('nft: elements and statements broken by a placeholder are one warning, real errors stay', () => {
    const elements = Array.from({ length: 300 }, (_, k) => `<IP> . tcp . ${k} : goto svc`).join(', ');
    const text = `table ip nat {\n\tmap services {\n\t\ttype ipv4_addr . inet_proto . inet_service : verdict\n\t\telements = { 10.96.0.1 . tcp . 80 : goto svc, ${elements} }\n\t}\n\tchain svc {\n\t\tip daddr <IP> accept\n\t\tip daddr 10.0.0.1 frobnicate\n\t}\n}\n`;
    const r = parseNft(text);
    const problems = r.diagnostics.filter((d) => d.severity === 'error' || d.severity === 'warning');
    expect(problems.map((d) => `${d.range.start.line + 1} ${d.code}`)).toEqual(['8 unknown-statement', '4 anonymised-placeholders']);
    expect(problems[1].message).toMatch(/^301 anonymised placeholders/);
  });
});
