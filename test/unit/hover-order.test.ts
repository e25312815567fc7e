// Hovers lead with the answer: on a Service's chain, map element, rule or IPVS virtual service the hover first
// names the Service (or endpoint) with its frontends and shares; the generic lesson on the chain kind comes after.
// In English and with the Chinese bundle.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { LANGUAGES } from '../../src/core/language';
import { formatMessage, setTranslator, t } from '../../src/core/l10n';
import { classifyKubeChain } from '../../src/core/kube/chains';
import { explainKubeChainKind } from '../../src/core/explain/kube-chains';
import { explainNftKubeObjectName } from '../../src/core/explain/kube-nft';
import { explainScheduler } from '../../src/core/explain/ipvs';

const zh = JSON.parse(readFileSync('l10n/bundle.l10n.zh-cn.json', 'utf8')) as Record<string, string>;
const features = (id: string) => LANGUAGES.find((l) => l.languageId === id)!;
const lines = (file: string) => readFileSync(file, 'utf8').split('\n');
const head = (message: string) => t(message, '\u0000').split('\u0000')[0];

/** The hover at the first character of `column` on every line `pick` accepts. */
function hovers(id: string, file: string, pick: RegExp, column: number | ((line: string) => number) = 1): { line: string; markdown: string }[] {
  const f = features(id);
  const a = f.analyze(readFileSync(file, 'utf8'));
  const out: { line: string; markdown: string }[] = [];
  lines(file).forEach((line, l) => {
    if (!pick.test(line)) return;
    const hover = f.hoverAt(a, { line: l, character: typeof column === 'function' ? column(line) : column });
    if (hover) out.push({ line, markdown: hover.markdown });
  });
  return out;
}

/** `first` appears, and before `then`. */
function before(markdown: string, first: string, then: string): void {
  const i = markdown.indexOf(first);
  expect(i, `${first} in\n${markdown}`).toBeGreaterThanOrEqual(0);
  const j = markdown.indexOf(then);
  expect(j, `${then} in\n${markdown}`).toBeGreaterThan(i);
}

for (const locale of ['en', 'zh-cn'] as const) {
  describe(`hovers lead with the answer (${locale})`, () => {
    const withLocale = (fn: () => void) => () => {
      if (locale === 'zh-cn') setTranslator((m, args) => formatMessage(Object.hasOwn(zh, m) ? zh[m] : m, args));
      try {
        fn();
      } finally {
        setTranslator(undefined);
      }
    };

    it(
      'iptables KUBE-SVC/SVL/EXT/FW/SEP chains: Service, frontends, endpoints, then the chain kind',
      withLocale(() => {
        const found = hovers('iptables', 'samples/iptables-nft/node1.iptables', /^:KUBE-(SVC|SVL|EXT|FW|SEP)-/);
        expect(found.length).toBeGreaterThan(5);
        for (const { line, markdown } of found) {
          const kind = classifyKubeChain(line.slice(1).split(' ')[0], 'nat')!.kind;
          const lesson = explainKubeChainKind(kind, 'nat');
          expect(markdown.split('\n')[2], markdown).toMatch(/^Service \*\*/);
          before(markdown, 'Service **', lesson);
          if (kind === 'endpoint') before(markdown, head('This endpoint: {0} receives **{1}** of new connections.'), lesson);
          else if (!markdown.includes(t('No endpoints in this dump.'))) before(markdown, head('Endpoints (share of new ClusterIP connections from a pod):'), lesson);
        }
      }),
    );

    it(
      'iptables jump targets and --probability: the endpoint and its real share first',
      withLocale(() => {
        const f = features('iptables');
        const file = 'samples/iptables-nft/node1.iptables';
        const a = f.analyze(readFileSync(file, 'utf8'));
        const all = lines(file);
        const l = all.findIndex((x) => /^-A KUBE-SVC-.*--probability/.test(x));
        const probability = f.hoverAt(a, { line: l, character: all[l].indexOf('--probability') + 2 })!.markdown;
        before(
          probability,
          head('Real share of endpoint {0} ({1}): **{2}** of new connections.'),
          head(
            'This rule matches {0} of the packets that reach it; the others go on to the next rule. kube-proxy writes 1/n, 1/(n−1), …, 1/2 on the rules for n endpoints and no condition on the last one, because each rule only sees what the rules before it left: in the end every endpoint gets 1/n of new connections.',
          ),
        );
        const jump = f.hoverAt(a, { line: l, character: all[l].indexOf('KUBE-SEP-') + 2 })!.markdown;
        before(jump, 'Service **', explainKubeChainKind('endpoint', 'nat'));
        const d = all.findIndex((x) => /^-A KUBE-SEP-.*DNAT/.test(x));
        const dnat = f.hoverAt(a, { line: d, character: all[d].indexOf('DNAT') + 1 })!.markdown;
        before(
          dnat,
          head('Endpoint of **{0}**, chosen for {1} of new connections.'),
          head(
            "Rewrites the destination of the connection's first packet to {0}; conntrack applies the same rewrite to every later packet and reverses it on replies, so the client keeps talking to the Service address.",
          ),
        );
      }),
    );

    it(
      'nft service-/endpoint- chains and map elements: the Service first',
      withLocale(() => {
        const file = 'samples/nftables/node1.nft';
        const chains = hovers('nftables', file, /^\s*chain (service|endpoint|external|local)-[A-Z0-9]{8}-/, (line) => line.indexOf('chain ') + 7);
        expect(chains.length).toBeGreaterThan(3);
        for (const { line, markdown } of chains) {
          const name = line.trim().split(/\s+/)[1];
          before(markdown, 'Service **', explainNftKubeObjectName(name)!);
        }
        const elements = hovers('nftables', file, /: goto service-/, (line) => line.search(/\d/) + 1);
        expect(elements.length).toBeGreaterThan(1);
        for (const { markdown } of elements) before(markdown, 'Service **', explainNftKubeObjectName('service-ips')!);
      }),
    );

    it(
      'IPVS virtual services: real servers with shares before the scheduler lesson',
      withLocale(() => {
        const found = hovers('ipvsadm', 'samples/ipvs/node1.ipvsadm', /^(TCP|UDP|SCTP) /, 0);
        expect(found.length).toBeGreaterThan(2);
        for (const { markdown } of found) {
          if (!markdown.includes(t('Real servers:'))) continue;
          before(markdown, t('Real servers:'), explainScheduler('rr'));
        }
      }),
    );
  });
}
