import { describe, expect, it } from 'vitest';
import { analyzeIptables } from '../../src/core/language/iptables';
import { expectedCatalog, generateIptablesDump, randomServices, type GenServicePort } from '../../tools/generate/iptables';
import { parseDestination, traceSnapshot, traceToJson, type Entry } from '../../src/core/trace';
import { canonicalAddress, formatAddress, isIpv4 as isCanonicalIPv4, parseAddress, parsePrefix, prefixContains } from '../../src/core/model/address';

const file = (text: string) => ({ name: 'dump.iptables', analysis: analyzeIptables(text) });
const trace = (text: string, to: string, opts: { from?: string; entry?: Entry; nodeIPs?: string[] } = {}) => {
  const d = parseDestination(to)!;
  return traceSnapshot([file(text)], { to: d.address, dport: d.port, protocol: d.protocol, entry: opts.entry ?? 'pod', from: opts.from, nodeIPs: opts.nodeIPs });
};
const summary = (r: ReturnType<typeof trace>) =>
  r.outcomes.map((o) => `${o.probability.toFixed(4)} ${o.verdict}${o.destination ? ' ' + o.destination : ''}${o.masquerade ? ' masq' : ''}${o.assumptions.length ? ' [' + o.assumptions.join('; ') + ']' : ''}`);

describe('addresses', () => {
  it('parses and formats IPv4, IPv6, prefixes and netmasks', () => {
    expect(formatAddress(parseAddress('10.1.2.3')!)).toBe('10.1.2.3');
    expect(formatAddress(parseAddress('fd00:0:0:0:0:0:0:1')!)).toBe('fd00::1');
    expect(formatAddress(parseAddress('::ffff:1.2.3.4')!)).toBe('::ffff:102:304');
    expect(prefixContains(parsePrefix('192.168.0.0/255.255.0.0')!, parseAddress('192.168.9.9')!)).toBe(true);
    expect(prefixContains(parsePrefix('fd00::/8')!, parseAddress('fd12::1')!)).toBe(true);
    expect(prefixContains(parsePrefix('10.0.0.0/8')!, parseAddress('fd00::1')!)).toBe(false);
    expect(parseAddress('10.0.0.256')).toBeUndefined();
    expect(parseDestination('[fd00::10]:53/udp')).toEqual({ address: 'fd00::10', port: 53, protocol: 'udp' });
    expect(parseDestination('10.96.0.1:99999')).toBeUndefined();
  });

  it('tells canonical dotted quads (kept as they are) from everything canonicalAddress must rewrite', () => {
    const inputs = [
      '10.1.2.3',
      '0.0.0.0',
      '255.255.255.255',
      '10.01.2.3',
      '010.1.2.3',
      '10.1.2.256',
      '10.1.2',
      '10.1.2.3.4',
      '10.1.2.3 ',
      ' 10.1.2.3',
      '10..2.3',
      '10.1.2.',
      '.10.1.2',
      '1000.1.2.3',
      '10.1.2.3/32',
      'fd00::1',
      '::ffff:1.2.3.4',
      '',
      'x',
    ];
    for (const text of inputs) {
      const a = parseAddress(text);
      expect([text, isCanonicalIPv4(text)]).toEqual([text, a !== undefined && a.family === 4 && formatAddress(a) === text]);
    }
    expect(canonicalAddress('10.01.2.3')).toBe('10.1.2.3');
    expect(canonicalAddress('10.1.2.3')).toBe('10.1.2.3');
  });
});

describe('iptables trace against generated kube-proxy dumps', () => {
  for (const seed of [1, 2, 3]) {
    it(`seed ${seed}: every ClusterIP reaches exactly the catalog's endpoints with their shares`, () => {
      const services = randomServices(30, 4, seed);
      const text = generateIptablesDump({ services, style: 'iptables-nft-save', nodeRules: true });
      const f = file(text);
      for (const truth of expectedCatalog(services)) {
        const cluster = truth.frontends.find((fr) => fr.kind === 'clusterIP')!;
        const r = traceSnapshot([f], { to: cluster.address!, dport: cluster.port, protocol: truth.protocol as 'tcp', entry: 'pod' });
        const reachable = truth.endpoints.filter((e) => e.probability > 0);
        expect(r.outcomes.reduce((s, o) => s + o.probability, 0)).toBeCloseTo(1, 9);
        if (reachable.length === 0) {
          // No endpoints at all: REJECT; internalTrafficPolicy Local without a local one: DROP (kube-proxy).
          const def = services.find((x) => x.namespace === truth.namespace && x.name === truth.name && x.portName === truth.portName && x.protocol === truth.protocol)!;
          const ready = def.endpoints.filter((e) => e.ready !== false);
          expect(r.outcomes.map((o) => o.verdict)).toEqual([def.internalTrafficPolicy === 'Local' && ready.length > 0 ? 'drop' : 'reject']);
          continue;
        }
        const got = Object.fromEntries(r.outcomes.map((o) => [o.destination, Number(o.probability.toFixed(6))]));
        expect(got).toEqual(Object.fromEntries(reachable.map((e) => [`${e.address}:${e.port}`, Number(e.probability.toFixed(6))])));
        // From a pod inside the cluster CIDR nothing is masqueraded (except hairpin, not traced here).
        expect(r.outcomes.every((o) => !o.masquerade)).toBe(true);
      }
    });
  }

  it('a big KUBE-SERVICES chain (indexed by destination) gives the same answers as the rule-by-rule walk', () => {
    const services = randomServices(400, 3, 11);
    const f = file(generateIptablesDump({ services, style: 'iptables-nft-save', nodeRules: true }));
    expect(f.analysis.ruleset.tables.find((tb) => tb.name === 'nat')!.chainByName.get('KUBE-SERVICES')!.rules.length).toBeGreaterThan(256);
    const truth = expectedCatalog(services);
    for (const entry of truth.filter((_, i) => i % 23 === 0)) {
      const c = entry.frontends.find((fr) => fr.kind === 'clusterIP')!;
      const r = traceSnapshot([f], { to: c.address!, dport: c.port, protocol: entry.protocol as 'tcp', entry: 'pod' });
      const reachable = entry.endpoints.filter((e) => e.probability > 0);
      if (reachable.length === 0) continue;
      expect(Object.fromEntries(r.outcomes.map((o) => [o.destination, Number(o.probability.toFixed(6))]))).toEqual(Object.fromEntries(reachable.map((e) => [`${e.address}:${e.port}`, Number(e.probability.toFixed(6))])));
    }
    // An address no rule names still walks the rules without a -d (the NodePort rule at the end).
    expect(traceSnapshot([f], { to: '10.96.255.254', dport: 9, protocol: 'tcp', entry: 'pod' }).outcomes.map((o) => o.verdict)).toEqual(['accept']);
  });

  it("a pod source (none given) is never one of the traced Service's endpoints; an endpoint of another Service is a pod like any other", () => {
    // The first candidate pod address is near the end of the cluster CIDR (10.0.0.0/8 here): 10.255.255.6.
    const endpoint = (address: string) => ({ address, port: 8080 });
    const services: GenServicePort[] = [
      { namespace: 'ns', name: 'hairpin', portName: 'http', protocol: 'tcp', clusterIP: '10.96.0.10', port: 80, endpoints: [endpoint('10.255.255.6'), endpoint('10.255.255.5'), endpoint('10.1.0.2')] },
      { namespace: 'ns', name: 'other', portName: 'http', protocol: 'tcp', clusterIP: '10.96.0.11', port: 80, endpoints: [endpoint('10.1.0.3')] },
    ];
    const f = file(generateIptablesDump({ services, style: 'iptables-nft-save', nodeRules: true }));
    const to = (clusterIP: string, from?: string) => traceSnapshot([f], { to: clusterIP, dport: 80, protocol: 'tcp', entry: 'pod', from });
    const own = to('10.96.0.10');
    expect(own.packet.src).toBe('10.255.255.4');
    expect(summary(own).sort()).toEqual(['0.3333 dnat 10.1.0.2:8080', '0.3333 dnat 10.255.255.5:8080', '0.3333 dnat 10.255.255.6:8080']);
    expect(to('10.96.0.11').packet.src).toBe('10.255.255.6');
    // From that endpoint itself, when asked: the connection that comes back to it is masqueraded (hairpin).
    expect(summary(to('10.96.0.10', '10.255.255.6')).sort()).toEqual(['0.3333 dnat 10.1.0.2:8080', '0.3333 dnat 10.255.255.5:8080', '0.3333 dnat 10.255.255.6:8080 masq']);
  });

  it('a big KUBE-NODEPORTS chain (indexed by protocol and port) gives the answers of the rule-by-rule walk', () => {
    const services = randomServices(900, 3, 12);
    const big = file(generateIptablesDump({ services, style: 'iptables-nft-save', nodeRules: true }));
    expect(big.analysis.ruleset.tables.find((tb) => tb.name === 'nat')!.chainByName.get('KUBE-NODEPORTS')!.rules.length).toBeGreaterThan(256);
    const withNodePort = services.filter((x) => x.nodePort !== undefined);
    expect(withNodePort.length).toBeGreaterThan(100);
    const node = '192.168.0.10';
    const outcomes = (f: ReturnType<typeof file>, x: GenServicePort, entry: Entry) =>
      summary(traceSnapshot([f], { to: node, dport: x.nodePort!, protocol: x.protocol, entry, nodeIPs: [node], from: entry === 'external' ? '203.0.113.7' : '10.0.0.9' })).sort();
    for (const x of withNodePort.filter((_, i) => i % 9 === 0)) {
      // The same Service alone in a dump: chains of a few rules, walked rule by rule.
      const alone = file(generateIptablesDump({ services: [x], style: 'iptables-nft-save', nodeRules: true }));
      for (const entry of ['external', 'pod'] as const) expect([x.name, entry, outcomes(big, x, entry)]).toEqual([x.name, entry, outcomes(alone, x, entry)]);
    }
  });

  it('from the node itself: DNAT and masquerade (KUBE-MARK-MASQ for sources outside the cluster CIDR)', () => {
    const services = randomServices(10, 2, 4).filter((s) => s.endpoints.length > 0 && s.internalTrafficPolicy !== 'Local');
    const text = generateIptablesDump({ services, style: 'iptables-legacy-save', nodeRules: true });
    const s = services[0];
    const r = trace(text, `${s.clusterIP}:${s.port}/${s.protocol}`, { entry: 'node', nodeIPs: ['192.168.0.2'] });
    expect(r.packet.src).toBe('192.168.0.2');
    expect(r.outcomes.every((o) => o.verdict === 'dnat' && o.masquerade)).toBe(true);
  });
});

describe('general netfilter semantics (not kube-proxy shaped)', () => {
  const DOCKERISH = [
    '*filter',
    ':INPUT ACCEPT [0:0]',
    ':FORWARD DROP [0:0]',
    ':OUTPUT ACCEPT [0:0]',
    ':DOCKER - [0:0]',
    ':ALLOW - [0:0]',
    '-A FORWARD -o docker0 -j DOCKER',
    '-A FORWARD -p tcp -m multiport --dports 80,443,8000:8100 -j ALLOW',
    '-A FORWARD -p udp -j REJECT --reject-with icmp-port-unreachable',
    '-A DOCKER -d 172.17.0.2/32 ! -i docker0 -p tcp -m tcp --dport 80 -j ACCEPT',
    '-A ALLOW -s 10.0.0.0/8 -j RETURN',
    '-A ALLOW -j ACCEPT',
    'COMMIT',
    '*nat',
    ':PREROUTING ACCEPT [0:0]',
    ':POSTROUTING ACCEPT [0:0]',
    ':OUTPUT ACCEPT [0:0]',
    '-A PREROUTING -p tcp --dport 8080 -j DNAT --to-destination 172.17.0.2:80',
    '-A PREROUTING -p tcp --dport 2222 -j REDIRECT --to-ports 22',
    '-A POSTROUTING -s 172.17.0.0/16 ! -o docker0 -j MASQUERADE',
    'COMMIT',
  ].join('\n');

  it('the port of a rule decides whether it is looked at: plain, negated, a range, another protocol, a kept rule', () => {
    // Over 256 rules, so the chain is indexed and each rule first goes through its quick (necessary) condition.
    const filler = Array.from({ length: 300 }, (_, i) => `-A CHECK -d 10.1.${i >> 8}.${i & 255}/32 -p tcp -m tcp --dport 9 -j DROP`);
    const text = (rules: string[]) => ['*filter', ':INPUT ACCEPT [0:0]', ':FORWARD ACCEPT [0:0]', ':OUTPUT ACCEPT [0:0]', ':CHECK - [0:0]', '-A OUTPUT -j CHECK', ...filler, ...rules, 'COMMIT'].join('\n');
    const verdict = (rules: string[], to: string) => summary(trace(text(rules), to, { entry: 'node', from: '192.168.0.1' })).map((x) => x.split(' ')[1]);
    expect(verdict(['-A CHECK -p tcp -m tcp --dport 80 -j DROP'], '10.9.9.9:80')).toEqual(['drop']);
    expect(verdict(['-A CHECK -p tcp -m tcp --dport 80 -j DROP'], '10.9.9.9:443')).toEqual(['accept']);
    expect(verdict(['-A CHECK -p tcp -m tcp ! --dport 80 -j DROP'], '10.9.9.9:443')).toEqual(['drop']);
    expect(verdict(['-A CHECK -p tcp -m tcp ! --dport 80 -j DROP'], '10.9.9.9:80')).toEqual(['accept']);
    expect(verdict(['-A CHECK -p tcp -m tcp --dport 400:500 -j DROP'], '10.9.9.9:443')).toEqual(['drop']);
    expect(verdict(['-A CHECK -p udp -m udp --dport 443 -j DROP'], '10.9.9.9:443')).toEqual(['accept']);
    expect(verdict(['-A CHECK -p tcp -m tcp --dport 80 -m tcp --dport 443 -j DROP'], '10.9.9.9:443')).toEqual(['accept']);
    // A plain source host is a quick condition too (IPVS mode's KUBE-IPVS-OUT-FILTER); a network or a negated one is not.
    expect(verdict(['-A CHECK -s 192.168.0.1/32 -j DROP'], '10.9.9.9:443')).toEqual(['drop']);
    expect(verdict(['-A CHECK -s 192.168.0.2/32 -j DROP'], '10.9.9.9:443')).toEqual(['accept']);
    expect(verdict(['-A CHECK -s 192.168.0.2/32 -p tcp -m tcp --dport 443 -j DROP'], '10.9.9.9:443')).toEqual(['accept']);
    expect(verdict(['-A CHECK -s 192.168.0.1/32 -p tcp -m tcp --dport 443 -j DROP'], '10.9.9.9:443')).toEqual(['drop']);
    expect(verdict(['-A CHECK ! -s 192.168.0.2/32 -j DROP'], '10.9.9.9:443')).toEqual(['drop']);
    expect(verdict(['-A CHECK -s 192.168.0.0/24 -j DROP'], '10.9.9.9:443')).toEqual(['drop']);
    // A rule whose details were read before its quick condition was made answers the same.
    const file0 = file(text(['-A CHECK -p tcp -m tcp ! --dport 80 -j DROP']));
    const rule = (file0.analysis as { ruleset: { tables: { rules: { raw: string; matches: unknown[] }[] }[] } }).ruleset.tables[0].rules.at(-1)!;
    expect(rule.matches.length).toBe(1);
    const r = traceSnapshot([file0], { to: '10.9.9.9', dport: 443, protocol: 'tcp', entry: 'node', from: '192.168.0.1' });
    expect(r.outcomes.map((o) => o.verdict)).toEqual(['drop']);
  });

  it('policies, multiport ranges, RETURN to the caller, REJECT', () => {
    // Whether it leaves through docker0 or not, it is accepted: the condition does not change the outcome.
    expect(summary(trace(DOCKERISH, '8.8.8.8:8050', { from: '192.168.1.5', entry: 'external' }))).toEqual(['1.0000 accept']);
    expect(summary(trace(DOCKERISH, '8.8.8.8:53/udp', { from: '192.168.1.5', entry: 'external' })).every((s) => s.includes('reject'))).toBe(true);
    // From inside 10/8 the ALLOW chain returns and FORWARD's policy drops.
    expect(summary(trace(DOCKERISH, '8.8.8.8:443', { from: '10.1.1.1', entry: 'external' })).every((s) => s.includes('drop'))).toBe(true);
  });

  it('interfaces that do not change the outcome leave no assumption', () => {
    // DOCKER accepts it unless it arrives on docker0; ALLOW accepts it then: DNAT either way.
    const r = trace(DOCKERISH, '192.168.1.1:8080', { from: '192.168.1.5', entry: 'external', nodeIPs: ['192.168.1.1'] });
    expect(summary(r)).toEqual(['1.0000 dnat 172.17.0.2:80']);
    // From 10/8 ALLOW returns: FORWARD's policy drops what DOCKER does not accept. Each outcome holds one
    // consistent set of conditions, and each is 100% of new connections under them. From outside, the packet does
    // not arrive on docker0 (the entry point says so: no assumption).
    expect(summary(trace(DOCKERISH, '192.168.1.1:8080', { from: '10.1.1.1', entry: 'external', nodeIPs: ['192.168.1.1'] }))).toEqual([
      '1.0000 dnat 172.17.0.2:80 [assuming the packet leaves through interface docker0]',
      '1.0000 drop [assuming the packet does not leave through interface docker0]',
    ]);
    // From a pod (a container on docker0, say), it may: then FORWARD's policy drops it.
    expect(summary(trace(DOCKERISH, '192.168.1.1:8080', { from: '10.1.1.1', entry: 'pod', nodeIPs: ['192.168.1.1'] }))).toContain(
      '1.0000 drop [assuming the packet leaves through interface docker0; assuming the packet arrives on interface docker0]',
    );
  });

  it('REDIRECT goes to this node', () => {
    const r = trace(DOCKERISH, '192.168.1.1:2222', { from: '192.168.1.5', entry: 'external', nodeIPs: ['192.168.1.1'] });
    expect(r.outcomes.map((o) => [o.verdict, o.destination])).toEqual([['dnat', '192.168.1.1:22']]);
  });

  it('marks: set, test with mask, xor; goto does not return', () => {
    const text = [
      '*mangle',
      ':PREROUTING ACCEPT [0:0]',
      ':M - [0:0]',
      ':G - [0:0]',
      '-A PREROUTING -j MARK --set-xmark 0x10/0xff',
      '-A PREROUTING -m mark --mark 0x10/0xf0 -g G',
      '-A PREROUTING -j DROP',
      '-A G -j MARK --or-mark 0x4000',
      'COMMIT',
      '*filter',
      ':FORWARD ACCEPT [0:0]',
      '-A FORWARD -m mark ! --mark 0x4000/0x4000 -j DROP',
      'COMMIT',
    ].join('\n');
    // goto G, whose end returns to PREROUTING's caller (the hook): the DROP after the goto is never reached.
    expect(summary(trace(text, '1.1.1.1:80', { from: '10.0.0.1' }))).toEqual(['1.0000 accept']);
  });

  it('statistic nth and random, nested, sum to 1', () => {
    const text = [
      '*nat',
      ':PREROUTING ACCEPT [0:0]',
      '-A PREROUTING -m statistic --mode nth --every 4 --packet 0 -j DNAT --to-destination 10.0.0.1:80',
      '-A PREROUTING -m statistic --mode random --probability 0.5 -j DNAT --to-destination 10.0.0.2:80',
      '-A PREROUTING -j DNAT --to-destination 10.0.0.3',
      'COMMIT',
    ].join('\n');
    expect(summary(trace(text, '9.9.9.9:80', { from: '10.1.0.1' }))).toEqual(['0.3750 dnat 10.0.0.2:80', '0.3750 dnat 10.0.0.3:80', '0.2500 dnat 10.0.0.1:80']);
  });

  it('unknown modules and ipsets become assumptions, not guesses', () => {
    const text = ['*filter', ':INPUT ACCEPT [0:0]', ':FORWARD ACCEPT [0:0]', '-A FORWARD -m set --match-set BLOCKED src -j DROP', '-A FORWARD -m frobnicate --level 3 -j REJECT', 'COMMIT'].join('\n');
    const r = trace(text, '1.1.1.1:80', { from: '10.0.0.1' });
    expect(r.outcomes.map((o) => o.verdict).sort()).toEqual(['accept', 'drop', 'reject']);
    expect(r.outcomes.find((o) => o.verdict === 'drop')!.assumptions).toEqual(['assuming the packet is in ipset BLOCKED']);
    expect(r.outcomes.find((o) => o.verdict === 'reject')!.assumptions).toEqual(['assuming the packet is not in ipset BLOCKED', 'assuming -m frobnicate --level 3 matches']);
  });

  it('loops are reported, never hang', () => {
    const text = ['*filter', ':FORWARD ACCEPT [0:0]', ':A - [0:0]', ':B - [0:0]', '-A FORWARD -j A', '-A A -j B', '-A B -j A', 'COMMIT'].join('\n');
    const r = trace(text, '1.1.1.1:80', { from: '10.0.0.1' });
    expect(r.warnings.join(' ')).toContain('Loop');
    expect(r.outcomes.map((o) => o.verdict)).toEqual(['drop']);
  });

  it('IPv6 packets use the IPv6 save of a concatenated dump', () => {
    const text = [
      '*nat',
      ':PREROUTING ACCEPT [0:0]',
      '-A PREROUTING -d 10.0.0.1/32 -j DNAT --to-destination 10.0.0.9',
      'COMMIT',
      '*nat',
      ':PREROUTING ACCEPT [0:0]',
      '-A PREROUTING -d fd00::1/128 -p tcp -j DNAT --to-destination [fd00::9]:8080',
      'COMMIT',
    ].join('\n');
    expect(summary(trace(text, '[fd00::1]:80', { from: 'fd00::5' }))).toEqual(['1.0000 dnat [fd00::9]:8080']);
    expect(summary(trace(text, '10.0.0.1:80', { from: '10.0.0.5' }))).toEqual(['1.0000 dnat 10.0.0.9:80']);
  });

  it('the --json shape is exactly the documented one', () => {
    const json = traceToJson(trace(DOCKERISH, '192.168.1.1:2222', { from: '192.168.1.5', entry: 'external', nodeIPs: ['192.168.1.1'] }), ['dump.iptables']) as { packet: object; outcomes: Record<string, unknown>[] };
    expect(Object.keys(json)).toEqual(['packet', 'outcomes', 'moreOutcomes', 'nodeIPs']);
    expect((json as unknown as { nodeIPs: object }).nodeIPs).toEqual({ addresses: ['192.168.1.1'], origin: 'given' });
    // A packet from this node says where its source comes from.
    const node = traceToJson(trace(DOCKERISH, '192.168.1.1:2222', { entry: 'node', nodeIPs: ['192.168.1.1'] }), ['dump.iptables']) as { source: object };
    expect(Object.keys(node)).toEqual(['packet', 'outcomes', 'moreOutcomes', 'nodeIPs', 'source']);
    expect(Object.keys(node.source)).toEqual(['origin', 'reason']);
    expect(Object.keys(json.packet)).toEqual(['src', 'dst', 'protocol', 'dport', 'entry']);
    expect(Object.keys(json.outcomes[0])).toEqual(['verdict', 'destination', 'probability', 'masquerade', 'assumptions', 'conditions', 'path']);
    expect(Object.keys((json.outcomes[0].path as object[])[0])).toEqual(['file', 'line', 'table', 'chain', 'text', 'note']);
  });
});
