// Names from a dump that are also the names of an object's prototype members (`constructor`, `__proto__`,
// `toString`…) must mean nothing special: a table looked up by such a name once crashed the iptables parser
// (`*constructor`) and let nft JSON, ipvsadm and nft priorities accept them as known words. Each input is read
// with every prototype name and with a plain unknown word of the same length: the answers must be the same.
import { describe, expect, it } from 'vitest';
import { analyzeFile, buildSnapshot, type SnapshotFile } from '../../src/core/snapshot';
import { traceSnapshot } from '../../src/core/trace';
import type { Diagnostic } from '../../src/core/model/diagnostics';

const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', '__defineGetter__'];

/** Inputs by language, with NAME wherever a dump has a name or a keyword from a fixed list. */
const INPUTS: { languageId: string; text: string }[] = [
  {
    languageId: 'iptables',
    text: [
      '*NAME',
      ':NAME ACCEPT [0:0]',
      ':X - [0:0]',
      '-A NAME -p NAME -m NAME --NAME NAME -j NAME',
      '-A X -j X2 --NAME NAME',
      'COMMIT',
      '*nat',
      ':PREROUTING ACCEPT [0:0]',
      ':NAME - [0:0]',
      '-A PREROUTING -p tcp -m NAME -j NAME',
      '-A PREROUTING -p NAME --dport 80 -j DNAT --to-destination 10.0.0.1:80',
      '-A NAME -j NAME',
      'COMMIT',
      '',
    ].join('\n'),
  },
  {
    languageId: 'nftables',
    text: [
      'table ip NAME {',
      '\tset NAME { type NAME; flags NAME; elements = { NAME } }',
      '\tmap m { type ipv4_addr : NAME; elements = { 10.0.0.1 : NAME } }',
      '\tchain NAME { type NAME hook NAME priority NAME + 10; policy NAME; NAME NAME NAME; jump NAME; ip daddr @NAME NAME; }',
      '\tchain c { type nat hook prerouting priority NAME; ip daddr 10.0.0.1 tcp dport 80 dnat to 10.0.0.2:80; meta l4proto NAME accept; }',
      '}',
      'table NAME t2 { chain c { type filter hook input priority 0; } }',
      '',
    ].join('\n'),
  },
  {
    languageId: 'nftables',
    text: JSON.stringify({
      nftables: [
        { NAME: { family: 'ip', name: 'x' } },
        { table: { family: 'NAME', name: 'NAME' } },
        { table: { family: 'ip', name: 't' } },
        { chain: { family: 'ip', table: 't', name: 'NAME', type: 'NAME', hook: 'NAME', prio: 0, policy: 'NAME' } },
        { rule: { family: 'ip', table: 't', chain: 'NAME', expr: [{ NAME: {} }, { jump: { target: 'NAME' } }, { match: { op: 'NAME', left: { meta: { key: 'NAME' } }, right: 'NAME' } }] } },
        { set: { family: 'ip', table: 't', name: 'NAME', type: 'NAME', flags: ['NAME'], elem: ['NAME'] } },
      ],
    }),
  },
  {
    languageId: 'ipvsadm',
    text: [
      'IP Virtual Server version 1.2.1 (size=4096)',
      'Prot LocalAddress:Port Scheduler Flags',
      '  -> RemoteAddress:Port           Forward Weight ActiveConn InActConn',
      'TCP  10.96.0.1:443 NAME',
      '  -> 10.0.0.2:6443                NAME    1      0          0',
      'NAME  10.96.0.2:80 rr',
      '  -> 10.0.0.3:80                  Masq    NAME   0          0',
      '',
    ].join('\n'),
  },
  {
    languageId: 'ipvsadm',
    text: ['-A -t 10.96.0.1:443 -s NAME', '-a -t 10.96.0.1:443 -r 10.0.0.2:6443 -NAME -w 1', '-NAME -t 10.96.0.3:80 -s rr', '-A -t 10.96.0.4:NAME -s rr -p NAME', ''].join('\n'),
  },
  {
    languageId: 'ipset',
    text: [
      'create NAME NAME family NAME NAME NAME',
      'create KUBE-CLUSTER-IP hash:ip,port family inet NAME 1024',
      'add NAME 10.0.0.1 NAME NAME',
      'add KUBE-CLUSTER-IP 10.96.0.1,tcp:443 NAME',
      'NAME KUBE-CLUSTER-IP',
      '',
    ].join('\n'),
  },
];

/** Everything the editor and the CLI ask of one analysis, as plain data (positions, codes, texts). */
function everything(f: SnapshotFile, text: string): unknown {
  const { features, analysis } = f;
  const a = analysis as never;
  const lines = text.split('\n');
  const at: unknown[] = [];
  lines.forEach((line, l) => {
    for (let c = 0; c <= line.length; c++) {
      const p = { line: l, character: c };
      at.push([features.hoverAt(a, p)?.markdown?.length ?? 0, features.definitionAt(a, p)?.range, features.referencesAt(a, p, true).length]);
    }
  });
  const diagnostics = (analysis.diagnostics as Diagnostic[]).map((d) => [d.code, d.severity, d.range]);
  const snapshot = buildSnapshot([f]);
  const traces = ['10.0.0.1', '10.96.0.1'].flatMap((to) =>
    (['pod', 'node', 'external'] as const).map((entry) =>
      traceSnapshot([{ name: f.name, analysis: analysis as never }], { to, dport: 443, protocol: 'tcp', entry }).outcomes.map((o) => [o.verdict, o.destination, o.probability]),
    ),
  );
  return {
    diagnostics,
    outline: JSON.stringify(features.outline(a)).length,
    folding: features.foldingRanges(a),
    semantic: features.semanticSymbols?.(a).map((s) => [s.kind, s.range]),
    status: features.statusSummary(a),
    services: snapshot.services.length,
    at,
    traces,
  };
}

describe('names that an object prototype also has', () => {
  INPUTS.forEach(({ languageId, text }, k) => {
    it(`${languageId} input ${k + 1}: read like any other unknown word`, () => {
      for (const name of PROTOTYPE_NAMES) {
        // Letters replaced, underscores kept: the same shape for lexers and Markdown escapes.
        const plain = name.replace(/[A-Za-z]/g, 'z');
        const read = (word: string) => {
          const input = text.replaceAll('NAME', word);
          const f = analyzeFile(`dump-${k}`, input, languageId)!;
          expect(f).toBeDefined();
          // Messages quote the word: they are compared with it put back.
          return JSON.stringify(everything(f, input)).replaceAll(word, 'NAME');
        };
        expect([name, read(name)]).toEqual([name, read(plain)]);
      }
    });
  });
});
