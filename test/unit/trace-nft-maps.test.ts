// Values followed through nft maps: marks set from maps (numgen, jhash, symhash, literal keys, named maps) and NAT
// from maps (`dnat to … map`, `dnat ip addr . port to … map`, `snat to … map`), in nft text and `nft -j` JSON.
// Shares come only from numgen; a flow's hash or a header the dump does not give is a condition (facts.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeFile } from '../../src/core/snapshot';
import { traceSnapshot, type Outcome, type SnapshotFile, type TraceRequest } from '../../src/core/trace';
import { haveNetnsTools, inThrowawayNetns, nftIn } from '../helpers/netns';

const files = (name: string, text: string): SnapshotFile[] => [{ name, analysis: analyzeFile(name, text)!.analysis as SnapshotFile['analysis'] }];
const trace = (name: string, text: string, request: Partial<TraceRequest> = {}) => traceSnapshot(files(name, text), { to: '10.0.0.5', dport: 80, protocol: 'tcp', from: '10.0.0.1', entry: 'pod', ...request });
const summary = (outcomes: Outcome[]) =>
  outcomes.map((o) => `${Number(o.probability.toFixed(4))} ${o.verdict}${o.destination ? ` ${o.destination}` : ''}${o.masquerade ? ' masq' : ''}${o.assumptions.length ? ` [${o.assumptions.join('; ')}]` : ''}`);

/** The nftlb shape from the issue, and what `nft -j list ruleset` (1.0.6) printed for it in a throw-away netns. */
const REPRO = `table ip nftlb {
	chain prerouting {
		type nat hook prerouting priority dstnat; policy accept;
		ip daddr 10.0.0.5 tcp dport 80 ct mark set numgen random mod 2 map { 0 : 0x1, 1 : 0x2 }
		ip daddr 10.0.0.5 tcp dport 80 dnat to ct mark map { 0x1 : 192.168.0.10, 0x2 : 192.168.0.11 }
	}
}
`;
const match = (left: unknown, right: unknown) => ({ match: { op: '==', left, right } });
const daddr80 = [match({ payload: { protocol: 'ip', field: 'daddr' } }, '10.0.0.5'), match({ payload: { protocol: 'tcp', field: 'dport' } }, 80)];
const REPRO_JSON = JSON.stringify({
  nftables: [
    { metainfo: { version: '1.0.6', release_name: 'Lester Gooch #5', json_schema_version: 1 } },
    { table: { family: 'ip', name: 'nftlb', handle: 1 } },
    { chain: { family: 'ip', table: 'nftlb', name: 'prerouting', handle: 1, type: 'nat', hook: 'prerouting', prio: -100, policy: 'accept' } },
    {
      rule: {
        family: 'ip',
        table: 'nftlb',
        chain: 'prerouting',
        handle: 3,
        expr: [
          ...daddr80,
          {
            mangle: {
              key: { ct: { key: 'mark' } },
              value: {
                map: {
                  key: { numgen: { mode: 'random', mod: 2, offset: 0 } },
                  data: {
                    set: [
                      [0, 1],
                      [1, 2],
                    ],
                  },
                },
              },
            },
          },
        ],
      },
    },
    {
      rule: {
        family: 'ip',
        table: 'nftlb',
        chain: 'prerouting',
        handle: 5,
        expr: [
          ...daddr80,
          {
            dnat: {
              addr: {
                map: {
                  key: { ct: { key: 'mark' } },
                  data: {
                    set: [
                      [1, '192.168.0.10'],
                      [2, '192.168.0.11'],
                    ],
                  },
                },
              },
            },
          },
        ],
      },
    },
  ],
});

describe('nft maps feeding marks and NAT', () => {
  it('the nftlb repro is a 50/50 DNAT to the two backends (text and JSON), with the marks on the path', () => {
    for (const [name, text] of [
      ['lb.nft', REPRO],
      ['lb.json', REPRO_JSON],
    ]) {
      const r = trace(name, text);
      expect(summary(r.outcomes), name).toEqual(['0.5 dnat 192.168.0.10:80', '0.5 dnat 192.168.0.11:80']);
      expect(
        r.outcomes[1].path.map((p) => p.note),
        name,
      ).toEqual(['numgen picked 1 of 2 (1/2). Share of new connections: 1/2. Connection mark is now 0x2.', 'dnat: the destination becomes 192.168.0.11:80.']);
    }
  });

  const dir = path.join(__dirname, '../fixtures/trace');
  const FORMS: [string, string][] = [
    ['nft-maps.nft', readFileSync(path.join(dir, 'nft-maps.nft'), 'utf8')],
    ['nft-maps.json', readFileSync(path.join(dir, 'nft-maps.json'), 'utf8')],
  ];
  const cases: [string, string[]][] = [
    // A flow's hash is the same for all its packets: a condition per element, no share (the last needs no assumption).
    ['10.0.0.6', ['1 dnat 192.168.0.10:80 [assuming jhash ip saddr . tcp sport mod 2 0 matches]', '1 dnat 192.168.0.11:80 [assuming jhash ip saddr . tcp sport mod 2 0 does not match]']],
    // A named map with address . port data.
    ['10.0.0.7', ['1 dnat 192.168.1.7:8080']],
    // A mark from a header the dump does not give; the later `meta mark 0x1` and the vmap on it follow the same fact.
    [
      '10.0.0.8',
      [
        '1 dnat 192.168.8.1:80 [assuming ip dscp cs1 matches]',
        '1 dnat 192.168.8.2:80 masq [assuming ip dscp cs1 does not match; assuming ip dscp cs2 matches]',
        '1 accept [assuming ip dscp cs1 does not match; assuming ip dscp cs2 does not match]',
      ],
    ],
    // symhash as a mark of its own (values 1 and 2), tested by later rules.
    ['10.0.0.9', ['1 dnat 192.168.9.1:80 [assuming symhash mod 2 offset 1 1 matches]', '1 dnat 192.168.9.2:80 [assuming symhash mod 2 offset 1 1 does not match]']],
    // ct mark from a named map with the client's address: a vmap on the mark; snat from numgen inc.
    ['10.0.0.10', ['1 dnat 192.168.8.2:80 masq']],
    // numgen inc's shares: 3 of 4 values, 1 of 4.
    ['10.0.0.11', ['0.75 dnat 192.168.8.1:80', '0.25 dnat 192.168.8.2:80 masq']],
    // A map with no element for the packet ends the rule: its drop is not reached.
    ['10.0.0.12', ['1 accept']],
  ];
  for (const [name, text] of FORMS) {
    it.each(cases)(`${name}: to %s`, (to, expected) => {
      const r = trace(name, text, { to });
      expect(summary(r.outcomes)).toEqual(expected);
      // No chain on the forward hook: said, nothing else.
      expect(r.warnings).toEqual([expect.stringContaining('no base chain on hooks the packet takes (forward, IPv4)')]);
    });
  }

  it('a mark set at run time is one fact on the path: two tests of it never contradict each other', () => {
    const text = `table ip t {
	chain pre {
		type filter hook prerouting priority mangle; policy accept;
		meta mark set ip dscp map { cs1 : 0x1 }
		meta mark 0x1 counter
		meta mark != 0x1 drop
		meta mark 0x1 meta mark set 0x7
		meta mark 0x1 drop
	}
}
`;
    // The first three tests follow one fact; after `set 0x7` the mark is known again.
    expect(summary(trace('m.nft', text).outcomes)).toEqual(['1 accept [assuming ip dscp cs1 matches]', '1 drop [assuming ip dscp cs1 does not match]']);
  });

  it('a mark set from a header the dump lacks, tested later, is a condition naming what set it', () => {
    const text = `table ip t {
	chain pre {
		type filter hook prerouting priority mangle; policy accept;
		meta mark set ip dscp
		meta mark 0x1 drop
	}
}
`;
    const r = trace('m.nft', text);
    expect(summary(r.outcomes)).toEqual(['1 accept [assuming meta mark == 0x1 (set from ip dscp) does not match]', '1 drop [assuming meta mark == 0x1 (set from ip dscp) matches]']);
  });

  it('elements of an unknown-key map with the same data are one condition; past 32 results the trace says it follows the first 32', () => {
    const ruleset = (elements: string) => `table ip t {
	chain pre {
		type nat hook prerouting priority dstnat; policy accept;
		dnat to ether saddr map { ${elements} }
	}
	chain post {
		type nat hook postrouting priority srcnat; policy accept;
	}
}
`;
    const mac = (i: number) => `02:00:00:00:${(i >> 8).toString(16).padStart(2, '0')}:${(i & 255).toString(16).padStart(2, '0')}`;
    const two = ruleset([0, 1, 2].map((i) => `${mac(i)} : 192.168.0.${i === 2 ? 11 : 10}`).join(', '));
    expect(summary(trace('m.nft', two, { entry: 'external' }).outcomes)).toEqual([
      '1 dnat 192.168.0.10:80 [assuming ether saddr { 02:00:00:00:00:00, 02:00:00:00:00:01 } matches]',
      '1 dnat 192.168.0.11:80 [assuming ether saddr { 02:00:00:00:00:00, 02:00:00:00:00:01 } does not match; assuming ether saddr 02:00:00:00:00:02 matches]',
      '1 accept [assuming ether saddr { 02:00:00:00:00:00, 02:00:00:00:00:01 } does not match; assuming ether saddr 02:00:00:00:00:02 does not match]',
    ]);
    const many = ruleset(Array.from({ length: 2000 }, (_, i) => `${mac(i)} : 10.1.${i >> 8}.${i & 255}`).join(', '));
    const r = trace('m.nft', many, { entry: 'external' });
    expect(r.outcomes).toHaveLength(33);
    expect(r.warnings).toContain('The map lookup on ether saddr at line 4 has 2000 results that depend on what the dump does not show; the trace follows the first 32.');
  });

  it('a connection mark copied into the packet mark is the same unknown: tests of either follow one fact', () => {
    const text = `table ip t {
	chain pre {
		type filter hook prerouting priority mangle; policy accept;
		ct mark set ip dscp
		meta mark set ct mark
		ct mark 0x1 counter
		meta mark != 0x1 drop
	}
}
`;
    expect(summary(trace('m.nft', text).outcomes)).toEqual(['1 accept [assuming ct mark == 0x1 (set from ip dscp) matches]', '1 drop [assuming ct mark == 0x1 (set from ip dscp) does not match]']);
  });

  it("mark prefixes (`ct mark 0x80000000/1`, nftlb's masquerade bit) test the top bits", () => {
    const text = (mark: string) => `table ip t {
	chain pre {
		type filter hook prerouting priority mangle; policy accept;
		ct mark set ${mark}
		ct mark 0x80000000/1 drop
	}
}
`;
    expect(summary(trace('m.nft', text('0x80000002')).outcomes)).toEqual(['1 drop']);
    expect(summary(trace('m.nft', text('0x00000002')).outcomes)).toEqual(['1 accept']);
  });
});

describe.skipIf(!haveNetnsTools)('the rulesets above against nft -c, in a throw-away network namespace (root only)', () => {
  it('nft accepts the repro and the fixture', () => {
    inThrowawayNetns('dpx-maps', (ns, work) => {
      for (const [name, text] of [
        ['repro.nft', REPRO],
        ['maps.nft', readFileSync(path.join(__dirname, '../fixtures/trace/nft-maps.nft'), 'utf8')],
      ]) {
        writeFileSync(path.join(work, name), text);
        nftIn(ns, ['-c', '-f', path.join(work, name)]);
      }
    });
  });
});
