// parseIpvsadm: every listing format of ipvsadm 1.31, restore input, prompts and prose around the output.
// Fixtures under test/grammar/ipvs/fixtures were rendered with ipvsadm's own printf formats (trailing
// spaces included); small inline fixtures cover the rest.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { realServerLabel, weightShares, type IpvsDump, type VirtualService } from '../../src/core/model/ipvs';
import { parseEndpoint, parseIpvsadm } from '../../src/core/parse/ipvs/parser';
import { isIpv4, isIpv6 } from '../../src/core/model/address';
import { parseCount, parsePort } from '../../src/core/parse/ipvs/address';
import { lineRange } from '../../src/core/model/range';

const FIXTURES = resolve(__dirname, '../grammar/ipvs/fixtures');
const fixture = (name: string) => readFileSync(resolve(FIXTURES, name), 'utf8');

function svc(d: IpvsDump, name: string): VirtualService {
  const s = d.services.find((x) => x.name === name);
  if (!s) throw new Error(`no service ${name} in ${d.services.map((x) => x.name).join(', ')}`);
  return s;
}
const codes = (d: IpvsDump) => d.diagnostics.map((x) => `${x.range.start.line + 1}:${x.code}`);
const problems = (d: IpvsDump) => d.diagnostics.filter((x) => x.severity === 'error' || x.severity === 'warning');

describe('ipvsadm -Ln of a kube-proxy IPVS node', () => {
  const d = parseIpvsadm(fixture('kube-proxy-node.ipvsadm'));

  it('reads the header and every service without problems', () => {
    expect(d.dialect).toBe('ipvsadm');
    expect(d.producer).toBe('IP Virtual Server version 1.2.1');
    expect(d.version).toBe('1.2.1');
    expect(d.tableSize).toBe(4096);
    expect(d.formats).toEqual(['list']);
    expect(problems(d)).toEqual([]);
    expect(d.services.map((s) => s.name)).toEqual([
      'TCP 10.96.0.1:443',
      'TCP 10.96.0.10:53',
      'TCP 10.96.0.10:9153',
      'TCP 10.100.5.5:80',
      'TCP 10.104.20.30:80',
      'TCP 172.17.0.1:30080',
      'TCP 192.168.10.11:30080',
      'TCP 192.168.10.11:31443',
      'UDP 10.96.0.10:53',
      'TCP [fd00:10:96::a]:53',
      'UDP [fd00:10:96::a]:53',
    ]);
    expect(d.family).toBe('mixed');
  });

  it('kube-dns: 10.96.0.10:53 over UDP and TCP, rr, two real servers with their counters', () => {
    const udp = svc(d, 'UDP 10.96.0.10:53');
    expect(udp).toMatchObject({ protocol: 'udp', address: '10.96.0.10', port: 53, family: 'ipv4', scheduler: 'rr', flags: [] });
    expect(udp.persistent).toBeUndefined();
    expect(udp.realServers.map((r) => ({ a: r.address, p: r.port, f: r.forward, w: r.weight, ac: r.activeConn, in: r.inactConn }))).toEqual([
      { a: '10.244.1.3', p: 53, f: 'masq', w: 1, ac: 0, in: 4 },
      { a: '10.244.2.4', p: 53, f: 'masq', w: 1, ac: 0, in: 3 },
    ]);
    expect(weightShares(udp)).toEqual([0.5, 0.5]);
    const tcp = svc(d, 'TCP 10.96.0.10:53');
    expect(tcp.protocol).toBe('tcp');
    expect(tcp.realServers.map((r) => r.activeConn)).toEqual([1, 1]);
  });

  it('NodePort services on the node addresses and a terminating endpoint with weight 0', () => {
    const np = svc(d, 'TCP 192.168.10.11:30080');
    expect(np.realServers.map(realServerLabel)).toEqual(['10.244.1.5:8080', '10.244.2.7:8080', '10.244.2.8:8080']);
    expect(np.realServers.map((r) => r.weight)).toEqual([1, 1, 0]);
    expect(weightShares(np)).toEqual([0.5, 0.5, 0]);
    const zero = d.diagnostics.filter((x) => x.code === 'weight-zero');
    expect(zero.map((x) => x.severity)).toEqual(['hint', 'hint', 'hint']);
    expect(zero[0].range).toEqual(svc(d, 'TCP 10.104.20.30:80').realServers[2].weightRange);
  });

  it('session affinity: persistent 10800', () => {
    const s = svc(d, 'TCP 10.100.5.5:80');
    expect(s.persistent?.timeout).toBe(10800);
    expect(s.persistent?.netmask).toBeUndefined();
  });

  it('wlc service with weights keeps its counts and has no fixed shares', () => {
    const s = svc(d, 'TCP 192.168.10.11:31443');
    expect(s.scheduler).toBe('wlc');
    expect(s.realServers.map((r) => [r.weight, r.activeConn, r.inactConn])).toEqual([
      [3, 12, 40],
      [1, 4, 9],
    ]);
    expect(weightShares(s)).toBeUndefined();
  });

  it('IPv6 services and real servers in brackets', () => {
    const s = svc(d, 'TCP [fd00:10:96::a]:53');
    expect(s).toMatchObject({ family: 'ipv6', address: 'fd00:10:96::a', port: 53 });
    expect(s.realServers.map((r) => [r.address, r.port, r.family])).toEqual([
      ['fd00:10:244:1::3', 53, 'ipv6'],
      ['fd00:10:244:2::4', 53, 'ipv6'],
    ]);
  });

  it('ranges: the service name is protocol + address, the service folds through its last real server', () => {
    const lines = fixture('kube-proxy-node.ipvsadm').split('\n');
    const s = svc(d, 'TCP 10.96.0.10:53');
    const line = lines.indexOf('TCP  10.96.0.10:53 rr');
    expect(s.line).toBe(line);
    expect(s.nameRange).toEqual(lineRange(line, 0, 'TCP  10.96.0.10:53'.length));
    expect(s.schedulerRange).toEqual(lineRange(line, 19, 21));
    expect(s.fullRange.start.line).toBe(line);
    expect(s.fullRange.end.line).toBe(line + 2);
    // Trailing spaces of the last column are not part of the line's range.
    expect(s.realServers[0].range.end.character).toBe(lines[line + 1].trimEnd().length);
    expect(s.realServers[0].addressRange).toEqual(lineRange(line + 1, 5, 5 + '10.244.1.3:53'.length));
  });

  it('defines each virtual service as a symbol in the file scope', () => {
    expect(d.symbols.definitions.map((x) => x.name)).toEqual(d.services.map((s) => s.name));
    expect(d.symbols.definitions.every((x) => x.kind === 'virtualService' && x.scope === 'ipvs')).toBe(true);
    expect(d.symbols.references).toEqual([]);
  });
});

describe('ipvsadm -Ln of a director: every scheduler flag, forwarding method, SCTP, fwmark, persistence mask', () => {
  const d = parseIpvsadm(fixture('director.ipvsadm'));

  it('parses without errors or warnings', () => {
    expect(problems(d)).toEqual([]);
    expect(d.services).toHaveLength(7);
  });

  it('wrr with Route real servers: shares by weight', () => {
    const s = svc(d, 'TCP 203.0.113.10:80');
    expect(s.realServers.map((r) => r.forward)).toEqual(['route', 'route', 'route']);
    expect(weightShares(s)).toEqual([0.75, 0.25, 0]);
  });

  it('sh with (sh-fallback,sh-port) and mh with (mh-port)', () => {
    expect(svc(d, 'TCP 203.0.113.10:443').flags).toEqual(['sh-fallback', 'sh-port']);
    expect(svc(d, 'UDP 203.0.113.10:53')).toMatchObject({ scheduler: 'mh', flags: ['mh-port'] });
    expect(svc(d, 'UDP 203.0.113.10:53').realServers.every((r) => r.forward === 'tunnel')).toBe(true);
  });

  it('SCTP service', () => {
    expect(svc(d, 'SCTP 203.0.113.20:3868')).toMatchObject({ protocol: 'sctp', scheduler: 'lc' });
  });

  it('port 0 persistent service with mask and a Local real server', () => {
    const s = svc(d, 'TCP 203.0.113.30:0');
    expect(s.port).toBe(0);
    expect(s.persistent).toMatchObject({ timeout: 600, netmask: '255.255.255.0' });
    expect(s.realServers[0]).toMatchObject({ forward: 'route', localNode: true });
    expect(s.realServers[1].localNode).toBeUndefined();
  });

  it('fwmark services, IPv4 and IPv6', () => {
    expect(svc(d, 'FWM 100')).toMatchObject({ protocol: 'fwmark', fwmark: 100, family: 'ipv4', scheduler: 'rr' });
    const v6 = svc(d, 'FWM 200 IPv6');
    expect(v6).toMatchObject({ protocol: 'fwmark', fwmark: 200, family: 'ipv6', scheduler: 'wlc' });
    expect(v6.persistent).toMatchObject({ timeout: 300, netmask: '64' });
    expect(v6.realServers[0]).toMatchObject({ address: '2001:db8::31', port: 0, family: 'ipv6' });
  });
});

describe('ipvsadm -Sn (restore input)', () => {
  it('a kube-proxy node saves to the same services and real servers as its listing', () => {
    const listed = parseIpvsadm(fixture('kube-proxy-node.ipvsadm'));
    const saved = parseIpvsadm(fixture('kube-proxy-node.save.ipvsadm'));
    expect(problems(saved)).toEqual([]);
    expect(saved.formats).toEqual(['save']);
    const shape = (dump: IpvsDump) =>
      dump.services.map((s) => ({
        name: s.name,
        scheduler: s.scheduler,
        persistent: s.persistent?.timeout,
        servers: s.realServers.map((r) => `${realServerLabel(r)} ${r.forward} ${r.weight}`),
      }));
    expect(shape(saved)).toEqual(shape(listed));
  });

  it('a director saves to the same model as its listing (flags, masks, fwmark, Local as -g)', () => {
    const listed = parseIpvsadm(fixture('director.ipvsadm'));
    const saved = parseIpvsadm(fixture('director.save.ipvsadm'));
    expect(problems(saved)).toEqual([]);
    const shape = (dump: IpvsDump) =>
      dump.services.map((s) => ({
        name: s.name,
        scheduler: s.scheduler,
        flags: s.flags,
        persistent: s.persistent && { timeout: s.persistent.timeout, netmask: s.persistent.netmask },
        servers: s.realServers.map((r) => `${realServerLabel(r)} ${r.forward} ${r.weight}`),
      }));
    expect(shape(saved)).toEqual(shape(listed));
  });

  it('-a lines reference the -A definition; commands are kept with their options', () => {
    const d = parseIpvsadm(fixture('kube-proxy-node.save.ipvsadm'));
    const refs = d.symbols.referencesTo('virtualService', 'ipvs', 'TCP 10.96.0.10:53');
    expect(refs.map((r) => [r.range.start.line, r.role])).toEqual([
      [3, 'rule-owner'],
      [4, 'rule-owner'],
    ]);
    const add = d.commandByLine.get(3)!;
    expect(add).toMatchObject({ command: 'add-server', name: '-a', service: 'TCP 10.96.0.10:53' });
    expect(add.options.map((o) => [o.name, o.values])).toEqual([
      ['-t', ['10.96.0.10:53']],
      ['-r', ['10.244.1.3:53']],
      ['-m', []],
      ['-w', ['1']],
    ]);
  });

  it('defaults: wlc scheduler, -g forwarding, weight 1, -p without a value is 300 s, a real server without port takes the service port', () => {
    const d = parseIpvsadm('-A -t 10.0.0.1:80\n-a -t 10.0.0.1:80 -r 10.0.0.2\n-A -u 10.0.0.1:53 -p\n');
    expect(problems(d)).toEqual([]);
    const s = svc(d, 'TCP 10.0.0.1:80');
    expect(s.scheduler).toBe('wlc');
    expect(s.realServers[0]).toMatchObject({ address: '10.0.0.2', port: 80, forward: 'route', weight: 1 });
    expect(svc(d, 'UDP 10.0.0.1:53').persistent?.timeout).toBe(300);
  });

  it('long options, --sctp-service, -x/-y thresholds and tunnel options', () => {
    const d = parseIpvsadm(
      [
        '--add-service --sctp-service 10.0.0.1:3868 --scheduler wrr --persistent 60 --netmask 255.255.0.0',
        '--add-server --sctp-service 10.0.0.1:3868 --real-server 10.1.0.2:3868 --ipip --weight 2 -x 100 -y 50 --tun-type gue --tun-port 6080 --tun-csum',
      ].join('\n'),
    );
    expect(problems(d)).toEqual([]);
    const s = svc(d, 'SCTP 10.0.0.1:3868');
    expect(s).toMatchObject({ protocol: 'sctp', scheduler: 'wrr', persistent: { timeout: 60, netmask: '255.255.0.0' } });
    expect(s.realServers[0]).toMatchObject({ forward: 'tunnel', weight: 2, upperThreshold: 100, lowerThreshold: 50, tunnel: { type: 'gue', port: 6080, checksum: 'csum' } });
  });

  it('-E edits, -D deletes, -e/-d change real servers, -C clears everything', () => {
    const d = parseIpvsadm(
      [
        '-A -t 10.0.0.1:80 -s rr',
        '-a -t 10.0.0.1:80 -r 10.0.0.2:80 -m -w 1',
        '-a -t 10.0.0.1:80 -r 10.0.0.3:80 -m -w 1',
        '-E -t 10.0.0.1:80 -s wrr -p 30',
        '-e -t 10.0.0.1:80 -r 10.0.0.2:80 -m -w 5',
        '-d -t 10.0.0.1:80 -r 10.0.0.3:80',
        '-A -u 10.0.0.1:53 -s rr',
        '-D -u 10.0.0.1:53',
      ].join('\n'),
    );
    expect(problems(d)).toEqual([]);
    expect(d.services.map((s) => s.name)).toEqual(['TCP 10.0.0.1:80']);
    const s = d.services[0];
    expect(s).toMatchObject({ scheduler: 'wrr', persistent: { timeout: 30 } });
    expect(s.realServers.map((r) => `${realServerLabel(r)} ${r.weight}`)).toEqual(['10.0.0.2:80 5']);
    const cleared = parseIpvsadm('-A -t 10.0.0.1:80 -s rr\n-C\n');
    expect(cleared.services).toEqual([]);
  });

  it('restore commands after a listing, a service listed twice, deletes and re-adds, -C then more', () => {
    const listing = [
      'IP Virtual Server version 1.2.1 (size=4096)',
      'Prot LocalAddress:Port Scheduler Flags',
      '  -> RemoteAddress:Port           Forward Weight ActiveConn InActConn',
      'TCP  10.0.0.1:80 rr',
      '  -> 10.0.0.2:80 Masq 1 0 0',
      '  -> 10.0.0.3:80 Masq 1 0 0',
    ];
    const d = parseIpvsadm(
      [
        ...listing,
        ...listing.slice(3), // 7-9: the same service again, servers merged
        '-d -t 10.0.0.1:80 -r 10.0.0.2:80',
        '-a -t 10.0.0.1:80 -r 10.0.0.2:80 -m -w 7', // back, now last
        '-d -t 10.0.0.1:80 -r 10.0.0.9:80', // 12: not there
        '-a -t 10.0.0.1:80 -r 10.0.0.3:80 -m', // 13: already there
        '-e -t 10.0.0.1:80 -r 10.0.0.3:80 -m -w 4',
        '-A -u 10.0.0.1:53 -s rr',
        '-a -u 10.0.0.1:53 -r 10.0.0.4:53 -m',
        '-A -u 10.0.0.5:53 -s rr',
        '-D -u 10.0.0.1:53',
      ].join('\n'),
    );
    expect(codes(d).filter((c) => !c.endsWith('no-real-servers'))).toEqual(['7:duplicate-service', '12:undefined-real-server', '13:duplicate-real-server']);
    expect(d.services.map((s) => [s.name, s.realServers.map((r) => `${realServerLabel(r)} ${r.weight} ${r.line + 1}`)])).toEqual([
      ['TCP 10.0.0.1:80', ['10.0.0.3:80 4 6', '10.0.0.2:80 7 11']],
      ['UDP 10.0.0.5:53', []],
    ]);
    const after = parseIpvsadm([...listing, '-C', '-A -t 10.0.0.1:80 -s rr', '-a -t 10.0.0.1:80 -r 10.0.0.2:80 -m'].join('\n'));
    expect(after.services.map((s) => [s.name, s.line + 1, s.realServers.map((r) => r.line + 1)])).toEqual([['TCP 10.0.0.1:80', 8, [9]]]);
  });

  it('what ipvsadm -R would refuse is an error on the line', () => {
    const d = parseIpvsadm(
      [
        '-a -t 10.0.0.9:80 -r 10.0.0.2:80 -m', // 1 service not defined (yet)
        '-A -t 10.0.0.9:80 -s rr', // 2
        '-A -t 10.0.0.9:80 -s wrr', // 3 exists
        '-a -t 10.0.0.9:80 -r 10.0.0.4:80 -m -w x', // 4 bad weight
        '-a -t 10.0.0.9:80 -r 10.0.0.2:80 -m', // 5
        '-a -t 10.0.0.9:80 -r 10.0.0.2:80 -m', // 6 duplicate destination
        '-A -t 10.0.0.8:0 -s rr', // 7 zero port without persistence
        '-A -t 10.0.0.7:80 -s rr -b sh-port', // 8 flag needs sh
        '-A -t 10.0.0.6:80 -s rr -b fast', // 9 invalid flag
        '-A -t 10.0.0.5:80 -s rr -r 10.0.0.2:80', // 10 -r with -A
        '-A -t 10.0.0.4:80 -s rr -Q', // 11 unknown option
        '-L -n', // 12 listing command
        '-t 10.0.0.3:80 -s rr', // 13 no command
        '-a -t 10.0.0.9:80 -m -w 1', // 14 no -r
        '-A -s rr', // 15 no service
        '-A -t 10.0.0.2:80 -s rr extra', // 16 extra argument
        '-A -t 10.0.0.1:80 -s rr -A', // 17 two commands
        '-A -f 0 -s rr', // 18 bad fwmark
        '-A -t 300.0.0.1:80 -s rr', // 19 bad address
        '-A -t 10.0.0.1:99999 -s rr', // 20 bad port
        '-e -t 10.0.0.9:80 -r 10.9.9.9:80 -m -w 2', // 21 no such destination
        '--set 900 120', // 22 needs three values
      ].join('\n'),
    );
    expect(codes(d).filter((c) => !c.endsWith('weight-zero'))).toEqual(
      expect.arrayContaining([
        '1:undefined-service',
        '3:duplicate-service',
        '4:bad-weight',
        '6:duplicate-real-server',
        '7:zero-port',
        '8:incompatible-flag',
        '9:bad-sched-flag',
        '10:illegal-option',
        '11:unknown-option',
        '12:not-restorable',
        '13:no-command',
        '14:missing-real-server',
        '15:missing-service',
        '16:unexpected-argument',
        '17:two-commands',
        '18:bad-fwmark',
        '19:bad-address',
        '20:bad-port',
        '21:undefined-real-server',
        '22:bad-timeout',
      ]),
    );
    for (const x of d.diagnostics) expect(x.message.length).toBeGreaterThan(10);
  });

  it('hints: unknown scheduler (warning), mask 0.0.0.0 groups all clients, a port ignored by direct routing', () => {
    const d = parseIpvsadm(['-A -t 10.0.0.1:80 -s rrr', '-A -t 10.0.0.2:80 -s rr -p 60 -M 0.0.0.0', '-a -t 10.0.0.2:80 -r 10.0.0.3:8080 -g'].join('\n'));
    expect(codes(d)).toEqual(['1:unknown-scheduler', '2:mask-all-clients', '3:port-ignored']);
    expect(svc(d, 'TCP 10.0.0.2:80').realServers[0].port).toBe(80);
  });

  it('--set records the timeouts', () => {
    expect(parseIpvsadm('--set 900 120 300\n').timeouts).toEqual({ tcp: 900, tcpFin: 120, udp: 300 });
  });
});

describe('other listings', () => {
  it('--stats: counters (shortened with K/M/G unless --exact), no scheduler, no forward or weight', () => {
    const d = parseIpvsadm(fixture('kube-proxy-node.stats.ipvsadm'));
    expect(problems(d)).toEqual([]);
    expect(d.formats).toEqual(['stats']);
    const api = svc(d, 'TCP 10.96.0.1:443');
    expect(api.scheduler).toBeUndefined();
    expect(api.stats).toMatchObject({ kind: 'stats', conns: 123456000, inPackets: 2345000000, outPackets: 0, inBytes: 987000000000, outBytes: 12, approximate: true });
    const dns = svc(d, 'TCP 10.96.0.10:53');
    expect(dns.stats).toMatchObject({ conns: 1204, approximate: false });
    expect(dns.realServers[1]).toMatchObject({ address: '10.244.2.4', notInDump: ['forward', 'weight'] });
    expect(dns.realServers[1].stats?.conns).toBe(603);
    expect(weightShares({ ...dns, scheduler: 'rr' })).toBeUndefined();
  });

  it('--stats --exact: long exact numbers, nothing shortened', () => {
    const d = parseIpvsadm(
      [
        '$ ipvsadm -Ln --stats --exact',
        'IP Virtual Server version 1.2.1 (size=4096)',
        'Prot LocalAddress:Port               Conns   InPkts  OutPkts  InBytes OutBytes',
        '  -> RemoteAddress:Port',
        'TCP  10.96.0.1:443                 123456789 2345678901         0 987654321000        12',
        '  -> 192.168.10.10:6443            123456789 2345678901         0 987654321000        12',
      ].join('\n'),
    );
    expect(problems(d)).toEqual([]);
    expect(d.services[0].stats).toMatchObject({ conns: 123456789, inPackets: 2345678901, inBytes: 987654321000, approximate: false });
    expect(d.services[0].realServers[0].stats?.approximate).toBe(false);
  });

  it('generic scheduler flags flag-1..flag-3 and ops', () => {
    const d = parseIpvsadm('FWM  100 wrr (flag-1,flag-3) persistent 60 ops\n-A -f 7 -s rr -b flag-2 -o\n');
    expect(problems(d)).toEqual([]);
    expect(svc(d, 'FWM 100').flags).toEqual(['flag-1', 'flag-3', 'ops']);
    expect(svc(d, 'FWM 7').flags).toEqual(['flag-2', 'ops']);
  });

  it('--rate', () => {
    const d = parseIpvsadm(
      [
        'IP Virtual Server version 1.2.1 (size=4096)',
        'Prot LocalAddress:Port                 CPS    InPPS   OutPPS    InBPS   OutBPS',
        '  -> RemoteAddress:Port',
        'TCP  10.96.0.10:53                       3       12       10      880     1400',
        '  -> 10.244.1.3:53                       2        6        5      440      700',
      ].join('\n'),
    );
    expect(problems(d)).toEqual([]);
    expect(d.formats).toEqual(['rate']);
    expect(d.services[0].stats).toMatchObject({ kind: 'rate', conns: 3, inBytes: 880 });
    expect(d.services[0].realServers[0].stats).toMatchObject({ kind: 'rate', conns: 2, outBytes: 700 });
  });

  it('--persistent-conn: weight and persistence templates per real server', () => {
    const d = parseIpvsadm(fixture('kube-proxy-node.persistent-conn.ipvsadm'));
    expect(problems(d)).toEqual([]);
    expect(d.formats).toEqual(['persistent-conn']);
    const s = d.services[0];
    expect(s).toMatchObject({ name: 'TCP 10.100.5.5:80', scheduler: 'rr', persistent: { timeout: 10800 } });
    expect(s.realServers.map((r) => [r.weight, r.persistConn, r.activeConn, r.inactConn, r.notInDump])).toEqual([
      [1, 7, 2, 1, ['forward']],
      [1, 6, 0, 0, ['forward']],
    ]);
  });

  it('--thresholds', () => {
    const d = parseIpvsadm(
      ['Prot LocalAddress:Port            Uthreshold Lthreshold ActiveConn InActConn', '  -> RemoteAddress:Port', 'TCP  10.0.0.1:80 wlc', '  -> 10.0.0.2:80                   100        50         3          0'].join(
        '\n',
      ),
    );
    expect(problems(d)).toEqual([]);
    expect(d.services[0].realServers[0]).toMatchObject({ upperThreshold: 100, lowerThreshold: 50, activeConn: 3, inactConn: 0 });
  });

  it('--tun-info: a TunnelInfo column for tunnelling servers, empty for the others', () => {
    const d = parseIpvsadm(
      [
        'Prot LocalAddress:Port Scheduler Flags',
        '  -> RemoteAddress:Port           Forward TunnelInfo    Weight ActiveConn InActConn',
        'UDP  203.0.113.10:53 rr',
        '  -> 10.1.0.2:53                  Tunnel  gue:6080      1      0          0',
        '  -> 10.1.0.3:53                  Masq                  1      0          0',
      ].join('\n'),
    );
    expect(problems(d)).toEqual([]);
    expect(d.formats).toEqual(['list', 'tun-info']);
    const [a, b] = d.services[0].realServers;
    expect(a).toMatchObject({ forward: 'tunnel', tunnel: { type: 'gue', port: 6080 }, weight: 1 });
    expect(b).toMatchObject({ forward: 'masq', weight: 1 });
    expect(b.tunnel).toBeUndefined();
  });

  it('ipvsadm -Lnc: connection entries reference the virtual service they belong to', () => {
    const text = fixture('kube-proxy-node.ipvsadm') + fixture('kube-proxy-node.connections.ipvsadm');
    const d = parseIpvsadm(text);
    expect(problems(d)).toEqual([]);
    expect(d.formats).toEqual(['list', 'connections']);
    expect(d.connections.map((c) => [c.protocol, c.expires, c.state, c.source.text, c.virtual.text, c.destination.text])).toEqual([
      ['TCP', 898, 'ESTABLISHED', '10.244.1.20:51234', '10.96.0.1:443', '192.168.10.10:6443'],
      ['UDP', 261, 'UDP', '10.244.1.20:40312', '10.96.0.10:53', '10.244.2.4:53'],
      ['TCP', 115, 'TIME_WAIT', '192.168.10.1:60001', '192.168.10.11:30080', '10.244.2.7:8080'],
      ['TCP', 10799, 'NONE', '10.244.1.20:0', '10.100.5.5:80', '10.244.1.9:8080'],
      ['TCP', 59, 'SYN_RECV', '[fd00:10:244:1::20]:41000', '[fd00:10:96::a]:53', '[fd00:10:244:2::4]:53'],
    ]);
    expect(d.connections[4].virtual).toMatchObject({ address: 'fd00:10:96::a', port: 53, family: 'ipv6' });
    const refs = d.symbols.referencesTo('virtualService', 'ipvs', 'UDP 10.96.0.10:53');
    expect(refs).toHaveLength(1);
    expect(refs[0].role).toBe('lookup');
    expect(d.symbols.resolve(refs[0].range.start)?.name).toBe('UDP 10.96.0.10:53');
  });

  it('--persistent-conn connection entries carry the persistence engine columns', () => {
    const d = parseIpvsadm(
      [
        'IPVS connection entries',
        'pro expire state       source             virtual            destination        pe name          pe_data',
        'UDP 00:57  UDP         10.0.0.5:5060      10.0.0.1:5060      10.0.1.2:5060      sip              abc123@host',
      ].join('\n'),
    );
    expect(problems(d)).toEqual([]);
    expect(d.connections[0]).toMatchObject({ peName: 'sip', peData: 'abc123@host' });
  });

  it('ipvsadm -L without -n: host and service names, ports resolved where the name is well known', () => {
    const d = parseIpvsadm(
      [
        'IP Virtual Server version 1.2.1 (size=4096)',
        'Prot LocalAddress:Port Scheduler Flags',
        '  -> RemoteAddress:Port           Forward Weight ActiveConn InActConn',
        'TCP  kubernetes.default.svc:https rr',
        '  -> master-1:6443                Masq    1      2          0',
        'TCP  db.example.com:postgresql wlc',
        '  -> db-1.example.com:postgresql  Route   1      0          0',
        'TCP  backup.example.com:bacula-fd rr',
        '  -> bk1:bacula-fd                Route   1      0          0',
        'TCP  web.example.com:http rr',
        '  -> web1:http                    Route   1      0          0',
        'TCP  app.example.com:myapp rr',
        'TCP  a-very-long-host-name.example.c rr',
      ].join('\n'),
    );
    expect(svc(d, 'TCP kubernetes.default.svc:https')).toMatchObject({ address: 'kubernetes.default.svc', hostname: true, port: 443, portName: 'https' });
    expect(svc(d, 'TCP kubernetes.default.svc:https').realServers[0]).toMatchObject({ address: 'master-1', hostname: true, port: 6443 });
    expect(svc(d, 'TCP db.example.com:postgresql')).toMatchObject({ port: 5432, portName: 'postgresql' });
    expect(svc(d, 'TCP backup.example.com:bacula-fd').realServers[0]).toMatchObject({ port: 9102, portName: 'bacula-fd' });
    expect(svc(d, 'TCP web.example.com:http').realServers[0]).toMatchObject({ address: 'web1', port: 80, forward: 'route' });
    expect(svc(d, 'TCP app.example.com:myapp')).toMatchObject({ portName: 'myapp' });
    expect(svc(d, 'TCP app.example.com:myapp').port).toBeUndefined();
    expect(codes(d)).toEqual(['12:unknown-port-name', '13:truncated-name']);
  });
});

describe('what is around the output', () => {
  it('prompts and prose get diagnostics; the output between them is still read', () => {
    const text = [
      '[root@node1 ~]# ipvsadm -Ln',
      'IP Virtual Server version 1.2.1 (size=4096)',
      'Prot LocalAddress:Port Scheduler Flags',
      '  -> RemoteAddress:Port           Forward Weight ActiveConn InActConn',
      'TCP  10.96.0.1:443 rr',
      '  -> 192.168.10.10:6443           Masq    1      3          0         ',
      'here the connection hangs, any idea?',
      'core@node-2:~$ sudo ipvsadm -Ln --stats',
      'Prot LocalAddress:Port               Conns   InPkts  OutPkts  InBytes OutBytes',
      '  -> RemoteAddress:Port',
      'TCP  10.96.0.1:443                      10      100      100     6000     6000',
      '  -> 192.168.10.10:6443                 10      100      100     6000     6000',
      '# ipvsadm -Sn',
      '-A -t 10.96.0.1:443 -s rr',
      '$ exit',
      '# a note I wrote',
      '中文说明',
    ].join('\n');
    const d = parseIpvsadm(text);
    expect(codes(d)).toEqual(['1:shell-prompt', '7:not-ipvsadm', '8:shell-prompt', '13:shell-prompt', '14:duplicate-service', '15:shell-prompt', '16:comment', '17:not-ipvsadm']);
    expect(d.diagnostics.find((x) => x.code === 'not-ipvsadm')?.severity).toBe('warning');
    expect(d.diagnostics.find((x) => x.code === 'shell-prompt')?.severity).toBe('information');
    expect(d.diagnostics[1].range).toEqual(lineRange(6, 0, 'here the connection hangs, any idea?'.length));
    // The --stats listing merges into the -Ln listing of the same node.
    expect(d.services).toHaveLength(1);
    const s = d.services[0];
    expect(s).toMatchObject({ scheduler: 'rr', stats: { conns: 10 } });
    expect(s.realServers).toHaveLength(1);
    expect(s.realServers[0]).toMatchObject({ forward: 'masq', weight: 1, activeConn: 3, notInDump: [], stats: { conns: 10 } });
    expect(d.realServerByLine.get(11)?.server).toBe(s.realServers[0]);
    expect(d.headers.filter((h) => h.kind === 'prompt')).toHaveLength(4);
    expect(d.formats).toEqual(['list', 'stats', 'save']);
  });

  it('CRLF line ends and tabs', () => {
    const d = parseIpvsadm('IP Virtual Server version 1.2.1 (size=4096)\r\nTCP\t10.0.0.1:80\trr\r\n  ->\t10.0.0.2:80\tMasq\t1\t0\t0\r\n');
    expect(problems(d)).toEqual([]);
    expect(d.services[0].realServers[0]).toMatchObject({ address: '10.0.0.2', weight: 1 });
    expect(d.lineCount).toBe(3);
  });

  it('structural problems in a listing', () => {
    const d = parseIpvsadm(
      [
        '  -> 10.0.0.2:80                  Masq    1      0          0', // 1 no service yet
        'TCP  10.0.0.1:80', // 2 no scheduler
        'TCP  10.0.0.1:81 rr persistent', // 3 no timeout
        'TCP  10.0.0.1:82 rr (sh-port)', // 4 flag that does not fit rr
        'TCP  10.0.0.1:83 rr bogus', // 5 unexpected column
        '  -> 10.0.0.2:80                  Bounce  1      0          0', // 6 unknown forward
        '  -> 10.0.0.3:80                  Masq    x      0          0', // 7 bad weight
        '  -> 10.0.0.4:80                  Masq    1', // 8 missing columns
        '  -> 10.0.0.4:80                  Masq    1      0          0', // 9 duplicate
        'TCP  10.0.0.1:84 rr mask 255.0.0.0', // 10 mask without persistence
        'FWM  x rr', // 11 bad fwmark
        'TCP  [fd00::1]:80 rr', // 12
        '  -> 10.0.0.5:80                  Masq    1      0          0', // 13 family mismatch
        'TCP  10.0.0.1:85 rr persistent 60 mask 255.0.255.0', // 14 non-contiguous mask
      ].join('\n'),
    );
    expect(codes(d)).toEqual([
      '1:real-server-without-service',
      '2:missing-scheduler',
      '3:missing-value',
      '4:incompatible-flag',
      '5:unexpected-column',
      '6:unknown-forward',
      '7:bad-weight',
      '8:bad-columns',
      '9:duplicate-real-server',
      '10:without-persistence',
      '11:bad-fwmark',
      '13:family-mismatch',
      '14:bad-netmask',
    ]);
  });

  it('a listed weight above 65535 is an error, in any length (no shares of Infinity / Infinity)', () => {
    const d = parseIpvsadm(
      [
        'TCP  10.0.0.1:80 wrr',
        '  -> 10.0.0.2:80                  Masq    65535  0          0',
        '  -> 10.0.0.3:80                  Masq    65536  0          0',
        '  -> 10.0.0.4:80                  Masq    999999999999999 0          0',
        `  -> 10.0.0.5:80                  Masq    ${'9'.repeat(400)} 0          0`,
      ].join('\n'),
    );
    expect(codes(d)).toEqual(['3:bad-weight', '4:bad-weight', '5:bad-weight']);
    expect(d.diagnostics.every((x) => x.severity === 'error' && x.message === 'A weight is at most 65535.')).toBe(true);
    const shares = weightShares(d.services[0])!;
    expect(shares.every(Number.isFinite)).toBe(true);
    expect(shares.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
  });

  it('caps the number of diagnostics', () => {
    const d = parseIpvsadm(Array.from({ length: 1500 }, () => 'prose prose').join('\n'));
    expect(d.diagnostics).toHaveLength(1001);
    expect(d.diagnostics[1000].code).toBe('too-many-problems');
  });

  it('empty and blank text', () => {
    for (const text of ['', '\n', '   \n\t\n']) {
      const d = parseIpvsadm(text);
      expect(d.services).toEqual([]);
      expect(d.diagnostics).toEqual([]);
    }
  });

  it('a very long line and binary data are reported, not analysed', () => {
    expect(codes(parseIpvsadm('TCP ' + 'x'.repeat(70_000)))).toEqual(['1:line-too-long']);
    expect(codes(parseIpvsadm('TCP\u0000 10.0.0.1:80 rr'))).toEqual(['1:binary']);
  });
});

describe('address helpers', () => {
  it('parseEndpoint', () => {
    const r = lineRange(0, 0, 1);
    expect(parseEndpoint('10.0.0.1:80', r).endpoint).toMatchObject({ address: '10.0.0.1', port: 80, family: 'ipv4' });
    expect(parseEndpoint('[fd00::1]:80', r).endpoint).toMatchObject({ address: 'fd00::1', port: 80, family: 'ipv6' });
    expect(parseEndpoint('fd00::1', r).endpoint).toMatchObject({ address: 'fd00::1', family: 'ipv6' });
    expect(parseEndpoint('10.0.0.1', r).endpoint.port).toBeUndefined();
    expect(parseEndpoint('web:https', r).endpoint).toMatchObject({ hostname: true, port: 443, portName: 'https' });
    expect(parseEndpoint('[fd00::1:80', r).problems[0].code).toBe('bad-address');
    expect(parseEndpoint('10.0.0.256:80', r).problems[0].code).toBe('bad-address');
    expect(parseEndpoint('10.0.0.1:', r).problems[0].code).toBe('bad-port');
    expect(parseEndpoint('fd00:::1', r).problems[0].code).toBe('bad-address');
  });

  it('isIpv4 / isIpv6 / parsePort / parseCount', () => {
    expect(['0.0.0.0', '255.255.255.255', '10.96.0.10'].every(isIpv4)).toBe(true);
    expect(['256.0.0.1', '1.2.3', '01.2.3.4', 'a.b.c.d'].some(isIpv4)).toBe(false);
    expect(['::', '::1', 'fd00:10:96::a', '2001:db8:0:0:0:0:0:1', '::ffff:10.0.0.1', 'fe80::'].every(isIpv6)).toBe(true);
    expect(['1:2:3:4:5:6:7:8:9', 'fd00:::1', '1::2::3', 'g::1', '10.0.0.1', ':1:2'].some(isIpv6)).toBe(false);
    expect(parsePort('443')).toEqual({ port: 443, valid: true });
    expect(parsePort('65536').valid).toBe(false);
    expect(parsePort('constructor')).toEqual({ port: undefined, name: 'constructor', valid: true });
    expect(parseCount('123K')).toEqual({ value: 123000, approximate: true });
    expect(parseCount('12')).toEqual({ value: 12, approximate: false });
    expect(parseCount('1.5')).toBeUndefined();
  });
});
