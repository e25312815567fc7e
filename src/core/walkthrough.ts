// Where the walkthrough's editor buttons ("Follow a Service with F12", "Read a hover") put the cursor in an
// iptables-save dump: found by analysing the dump, so a regenerated sample needs no new line numbers.
import { servicePortNameString, type Service } from './kube/service';
import type { IptablesAnalysis } from './language/iptables';
import type { Range } from './model/range';

export interface ServiceToFollow {
  /** `namespace/name:port`, as hovers and the trace name it. */
  service: string;
  /** The KUBE-SVC-… chain. */
  chain: string;
  /** `-j KUBE-SVC-…` of the Service's ClusterIP rule in KUBE-SERVICES: the chain name after -j. */
  jumpTarget: Range;
  /** The `:KUBE-SVC-…` declaration F12 goes to from the jump target. */
  declaration: Range;
  /** The chain name after `-A` of the first rule of KUBE-SVC-… that picks an endpoint with --probability. */
  probabilityRuleChain: Range;
  endpoints: number;
}

/**
 * The Service a newcomer follows through the dump: a named ClusterIP Service whose KUBE-SERVICES rule jumps to a
 * KUBE-SVC chain that picks among several endpoints with `--probability` (the most endpoints wins, then the first in
 * the file). Undefined when the dump has no such Service.
 */
export function serviceToFollow(a: IptablesAnalysis): ServiceToFollow | undefined {
  let best: ServiceToFollow | undefined;
  for (const s of a.catalog.services) {
    const candidate = candidateOf(a, s);
    if (!candidate) continue;
    if (!best || candidate.endpoints > best.endpoints || (candidate.endpoints === best.endpoints && candidate.jumpTarget.start.line < best.jumpTarget.start.line)) best = candidate;
  }
  return best;
}

function candidateOf(a: IptablesAnalysis, s: Service): ServiceToFollow | undefined {
  if (s.anonymous || !s.hash || s.endpoints.length < 2) return undefined;
  const chain = `KUBE-SVC-${s.hash}`;
  for (const object of s.objects) {
    if (object.role !== 'frontend-rule') continue;
    const rule = a.ruleset.ruleByLine.get(object.range.start.line);
    if (!rule || rule.chain !== 'KUBE-SERVICES' || rule.target?.name !== chain) continue;
    const table = a.ruleset.tableById.get(rule.tableId);
    const svc = table?.chainByName.get(chain);
    if (!svc?.declared) continue;
    const picker = svc.rules.find((r) => r.target?.name.startsWith('KUBE-SEP-') && r.matches.some((m) => m.module === 'statistic'));
    if (!picker) continue;
    return {
      service: servicePortNameString(s),
      chain,
      jumpTarget: rule.target.nameRange,
      declaration: svc.nameRange,
      probabilityRuleChain: picker.chainRange,
      endpoints: s.endpoints.length,
    };
  }
  return undefined;
}
