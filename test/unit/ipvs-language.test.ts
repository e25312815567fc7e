// ipvsadm language features through the pure core: definition, references, outline, folding, hovers and
// the status summary, with `<|>` cursor and `<<…>>` range markers in the fixtures.
import { describe, expect, it } from 'vitest';
import { analyzeIpvsadm, definitionAt, foldingRanges, hoverAt, ipvsadmFeatures, outline, referencesAt, serviceHover, statusSummary } from '../../src/core/language/ipvsadm';
import { explainForward, explainScheduler, explainSchedFlag, schedulerTitle } from '../../src/core/explain/ipvs';
import { IPVS_SCHEDULERS } from '../../src/core/model/ipvs';
import { mark } from '../helpers/markers';

const LISTING = `IP Virtual <|>Server version 1.2.1 (size=4096)
Prot LocalAddress:Port Scheduler Flags
  -> RemoteAddress:Port           Forward Weight ActiveConn InActConn
TCP  10.96.0.10:53 r<|>r
  -> 10.244.1.3:53                Masq    1      1          0
  -> 10.244.2.4:53                Masq    1      1          0
<<UDP  10.96.0.1<|>0:53>> rr
  -> 10.244.1.3:53                Ma<|>sq    1      0          4
  -> 10.244.2.4:53                Masq    <|>1      0          3
TCP  10.100.5.5:80 rr pers<|>istent 10800
  -> 10.244.1.9:8080              Masq    1      2          1
TCP  192.168.10.11:31443 w<|>lc
  -> 10.244.1.6:8443              Masq    3      12         40
  -> 10.244.2.6:8443              Masq    1      4          9
TCP  203.0.113.10:443 sh (sh-fall<|>back,sh-port)
  -> 198.51.100.11:443            Route   1      0          0
TCP  10.104.20.30:80 rr
  -> 10.244.1.5:8080              Masq    1      0          2
  -> 10.244.2.8:8080              Masq    <|>0      0          5
  -> 10.244.2.9:80<|>80              Masq    2      0          0
TCP  10.1.1.1:80 rr
IPVS connection entries
pro expire state       source             virtual            destination
UDP 04:21  UD<|>P         10.244.1.20:40312  <<10.96.0.<|>10:53>>      10.244.2.4:53
TCP 179:59 NONE        10.244.1.20:0      10.100.5.5:80      10.244.1.9:8080
`;
// Cursors: 0 header, 1 rr scheduler, 2 UDP service name, 3 Masq, 4 weight 1, 5 persistent, 6 wlc, 7 sh-fallback,
// 8 weight 0, 9 real server address, 10 connection state UDP, 11 connection virtual.
// Ranges: 0 the UDP service's name (definition), 1 the connection's virtual column (reference).
const fx = mark(LISTING);
const a = analyzeIpvsadm(fx.text);
const hover = (k: number) => hoverAt(a, fx.cursors[k])?.markdown ?? '';

describe('navigation', () => {
  it('analyses without problems, except the virtual service that has no real servers', () => {
    expect(a.diagnostics.filter((d) => d.severity !== 'hint').map((d) => `${d.code} ${d.message.split(' has ')[0]}`)).toEqual(['no-real-servers TCP 10.1.1.1:80']);
    expect(a.dialect).toBe('ipvsadm');
  });

  it("F12 on a connection entry's virtual address lands on the virtual service", () => {
    const def = definitionAt(a, fx.cursors[11]);
    expect(def?.name).toBe('UDP 10.96.0.10:53');
    expect(def?.range).toEqual(fx.ranges[0]);
    expect(definitionAt(a, fx.cursors[2])?.range).toEqual(fx.ranges[0]);
    expect(definitionAt(a, fx.cursors[3])).toBeUndefined();
  });

  it('references of a virtual service: its definition and the connection entries', () => {
    expect(referencesAt(a, fx.cursors[2], true)).toEqual([fx.ranges[0], fx.ranges[1]]);
    expect(referencesAt(a, fx.cursors[11], false)).toEqual([fx.ranges[1]]);
    expect(referencesAt(a, fx.cursors[3], true)).toEqual([]);
  });

  it('save format: -a lines reference their -A line', () => {
    const save = mark('-A -t <<10.96.0.10:53>> -s rr\n-a -t <<10.96.0.<|>10:53>> -r 10.244.1.3:53 -m -w 1\n-a -t <<10.96.0.10:53>> -r 10.244.2.4:53 -m -w 1\n');
    const s = analyzeIpvsadm(save.text);
    expect(definitionAt(s, save.cursors[0])?.range).toEqual(save.ranges[0]);
    expect(referencesAt(s, save.cursors[0], true)).toEqual(save.ranges);
  });
});

describe('outline and folding', () => {
  it('virtual services with their real servers, weights and shares; the connection table', () => {
    const items = outline(a);
    expect(items.map((i) => [i.name, i.detail, i.kind])).toEqual([
      ['TCP 10.96.0.10:53', 'rr · 2 real servers', 'service'],
      ['UDP 10.96.0.10:53', 'rr · 2 real servers', 'service'],
      ['TCP 10.100.5.5:80', 'rr · 1 real server · persistent 10800 s', 'service'],
      ['TCP 192.168.10.11:31443', 'wlc · 2 real servers', 'service'],
      ['TCP 203.0.113.10:443', 'sh · 1 real server', 'service'],
      ['TCP 10.104.20.30:80', 'rr · 3 real servers', 'service'],
      ['TCP 10.1.1.1:80', 'rr · 0 real servers', 'service'],
      ['IPVS connection entries', '2 connections', 'table'],
    ]);
    expect(items[1].selectionRange).toEqual(fx.ranges[0]);
    expect(items[1].children.map((c) => [c.name, c.detail])).toEqual([
      ['10.244.1.3:53', 'Masq · weight 1 · 50% · 0 active · 4 inactive'],
      ['10.244.2.4:53', 'Masq · weight 1 · 50% · 0 active · 3 inactive'],
    ]);
    expect(items[5].children.map((c) => c.detail)).toEqual(['Masq · weight 1 · 50% · 0 active · 2 inactive', 'Masq · weight 0 · 0% · 0 active · 5 inactive', 'Masq · weight 2 · 50% · 0 active · 0 inactive']);
    expect(items[3].children.map((c) => c.detail)).toEqual(['Masq · weight 3 · 12 active · 40 inactive', 'Masq · weight 1 · 4 active · 9 inactive']);
    for (const item of items) {
      for (const child of item.children) {
        expect(child.range.start.line).toBeGreaterThan(item.range.start.line);
        expect(child.range.end.line).toBeLessThanOrEqual(item.range.end.line);
      }
    }
  });

  it('each service folds over its real servers; the connection table folds', () => {
    expect(foldingRanges(a)).toEqual([
      { start: 3, end: 5 },
      { start: 6, end: 8 },
      { start: 9, end: 10 },
      { start: 11, end: 13 },
      { start: 14, end: 15 },
      { start: 16, end: 19 },
      { start: 21, end: 24 },
    ]);
  });
});

describe('hovers', () => {
  it('header: what the version and size mean', () => {
    expect(hover(0)).toContain('IP Virtual Server');
    expect(hover(0)).toContain('4096');
  });

  it('scheduler: rr explained with the shares of this service', () => {
    const text = hover(1);
    expect(text).toContain('Round robin');
    expect(text).toContain('`10.244.1.3:53` — 50%');
    expect(text).toContain('`10.244.2.4:53` — 50%');
  });

  it('virtual service: its real servers with their share', () => {
    const text = hover(2);
    expect(text).toContain('UDP 10.96.0.10:53');
    expect(text).toContain('- `10.244.1.3:53` — Masq · weight 1 · 50% · 0 active · 4 inactive');
    expect(text).toContain('Shares of new connections follow from the weights alone.');
    expect(hoverAt(a, fx.cursors[2])?.range).toEqual(fx.ranges[0]);
  });

  it('forwarding method', () => {
    expect(hover(3)).toContain('Masquerading (NAT)');
    expect(hover(3)).toContain('kube-proxy always uses it');
  });

  it('weight: share of new connections; weight 0 means terminating', () => {
    expect(hover(4)).toContain('**50%**');
    expect(hover(8)).toContain('Weight 0');
    expect(hover(8)).toContain('terminating');
    expect(hover(8)).toContain('**0%**');
  });

  it('persistence: session affinity and its timeout', () => {
    expect(hover(5)).toContain('10800');
    expect(hover(5)).toContain('sessionAffinity: ClientIP');
  });

  it('wlc: depends on live connection counts, shows the counts of the dump', () => {
    const text = hover(6);
    expect(text).toContain('Weighted least connection');
    expect(text).toContain('Connection counts in this dump:');
    expect(text).toContain('`10.244.1.6:8443` — Masq · weight 3 · 12 active · 40 inactive');
  });

  it('sh flags; sh depends on the client address', () => {
    expect(hover(7)).toContain('sh-fallback');
    const svc = a.dump.services.find((s) => s.name === 'TCP 203.0.113.10:443')!;
    expect(serviceHover(svc)).toContain('hash of the client address');
  });

  it('real server: weight share of 2/4 and the forwarding method', () => {
    const text = hover(9);
    expect(text).toContain('real server of TCP 10.104.20.30:80');
    expect(text).toContain('Gets **50%** of new connections');
  });

  it('a service without real servers says connections fail', () => {
    const svc = a.dump.services.find((s) => s.name === 'TCP 10.1.1.1:80')!;
    expect(serviceHover(svc)).toContain('No real servers');
  });

  it('connection entries: state and the virtual service', () => {
    expect(hover(10)).toContain('UDP');
    expect(hover(11)).toContain('UDP 10.96.0.10:53');
    const template = hoverAt(a, { line: 24, character: 1 })?.markdown ?? '';
    expect(template).toContain('persistence template');
  });

  it('restore input: options explain themselves', () => {
    const save = mark('-A -t 10.0.0.1:80 -s w<|>rr -p 6<|>0\n-a -t 10.0.0.1:80 -r 10.0.0.2:80 -<|>g -w <|>3\n-a -t 10.0.0.1:80 -r 10.0.0.<|>3:80 -i -w 1\n-A -t 10.0.0.2:80 -s sh -b sh-p<|>ort\n');
    const s = analyzeIpvsadm(save.text);
    const h = (k: number) => hoverAt(s, save.cursors[k])?.markdown ?? '';
    expect(h(0)).toContain('Weighted round robin');
    expect(h(0)).toContain('`10.0.0.2:80` — 75%');
    expect(h(1)).toContain('persistent 60');
    expect(h(2)).toContain('Direct routing');
    expect(h(3)).toContain('**75%**');
    expect(h(4)).toContain('Gets **25%**');
    expect(h(5)).toContain('sh-port');
  });

  it('nothing to say on blank space', () => {
    expect(hoverAt(a, { line: 1, character: 200 })).toBeDefined();
    expect(hoverAt(analyzeIpvsadm('\n\n'), { line: 1, character: 0 })).toBeUndefined();
  });
});

describe('status and registry shape', () => {
  it('statusSummary counts services, real servers and problems', () => {
    expect(statusSummary(a)).toEqual({
      dialect: 'ipvsadm',
      producer: 'IP Virtual Server version 1.2.1',
      backend: 'ipvs',
      family: 'ipv4',
      tables: 0,
      chains: 7,
      rules: 11,
      services: 0,
      errors: 0,
      warnings: 1, // TCP 10.1.1.1:80 has no real servers
    });
  });

  it('ipvsadmFeatures is a LanguageFeatures for the ipvsadm language; services() is empty for now', () => {
    expect(ipvsadmFeatures.languageId).toBe('ipvsadm');
    const analysis = ipvsadmFeatures.analyze(fx.text);
    expect(ipvsadmFeatures.services(analysis)).toEqual([]);
    expect(ipvsadmFeatures.outline(analysis)).toHaveLength(8);
  });
});

describe('explanations', () => {
  it('every kernel scheduler has a title and an explanation', () => {
    for (const s of IPVS_SCHEDULERS) {
      expect(schedulerTitle(s)).not.toBe('Unknown scheduler');
      expect(explainScheduler(s).length).toBeGreaterThan(40);
    }
    expect(explainScheduler('nope')).toContain('no IPVS scheduler');
    expect(explainScheduler('lc')).toContain('live connection counts');
    expect(explainScheduler('sed')).toContain('live connection counts');
    expect(explainScheduler('nq')).toContain('live connection counts');
    expect(explainScheduler('dh')).toContain('destination address');
    expect(explainScheduler('sh')).toContain('client (source) address');
  });

  it('forwarding methods and flags', () => {
    expect(explainForward('route')).toContain('-g');
    expect(explainForward('tunnel')).toContain('-i');
    expect(explainForward('route', true)).toContain('Local');
    for (const f of ['sh-fallback', 'sh-port', 'mh-fallback', 'mh-port', 'flag-1', 'flag-2', 'flag-3', 'ops']) expect(explainSchedFlag(f)).toContain(f);
  });
});
