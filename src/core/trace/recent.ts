// `-m recent` as the kernel's xt_recent evaluates it (net/netfilter/xt_recent.c, recent_mt): --set records the
// address and matches; --remove matches when the address is in the list and forgets it; --rcheck / --update match
// when the list holds at least --hitcount stamps of it (1 when not given) in the last --seconds (any time when not
// given), --update then stamps it again; `!` inverts the result, not what is recorded. What the list held before
// this connection is history no dump shows: a condition about the packet (facts.ts), decided once per path.
// kube-proxy's own lists (session affinity) keep their story: a new client is in none of them.
import type { Match, Rule } from '../model/iptables';
import { t } from '../l10n';
import { formatAddress, parseAddress, type Address } from '../model/address';
import { assume, certain, negate, type Cond, type RecentOp, type State } from './engine';
import type { RecentTest } from './types';
import { isKubeProxyAffinity } from '../kube/chains';

const COMMANDS = ['--set', '--rcheck', '--update', '--remove'] as const;

export interface RecentEval {
  cond: Cond;
  /** What the match records on a branch (matched: the branch where the rule's match held). */
  record?: (s: State, matched: boolean) => void;
}

/** The address a list keys on (--rsource / --rdest, under --mask). */
function keyAddress(m: Match, s: State): Address {
  const addr = m.options.some((o) => o.name === '--rdest') ? s.dst : s.src;
  const maskText = m.options.find((o) => o.name === '--mask')?.values[0];
  const mask = maskText ? parseAddress(maskText) : undefined;
  return mask && mask.family === addr.family ? { family: addr.family, value: addr.value & mask.value } : addr;
}

export function recentMatch(m: Match, s: State, rule: Rule): RecentEval {
  const opt = (n: string) => m.options.find((o) => o.name === n);
  const command = COMMANDS.find((c) => opt(c));
  const name = opt('--name')?.values[0] ?? 'DEFAULT';
  const seconds = Number(opt('--seconds')?.values[0] ?? 0) || 0;
  const invert = m.options.some((o) => o.negated);
  const inv = (c: Cond): Cond => (invert ? negate(c) : c);
  if (isKubeProxyAffinity(name, rule.chain, command, Boolean(opt('--reap')))) {
    if (command === '--set') return { cond: inv(certain(true)) };
    // A new client is in no affinity list; a returning one would match here.
    s.notes.push(t('Session affinity: a returning client (seen within {0} s) skips the random choice and goes back to the endpoint it used before ({1}).', seconds, rule.chain));
    return { cond: inv(certain(false)) };
  }
  const address = formatAddress(keyAddress(m, s));
  const list = `${name} ${opt('--rdest') ? 'dst' : 'src'} ${address}${opt('--rttl') ? ' ttl' : ''}`;
  const ops = (s.recent ?? []).filter((r) => r.list === list);
  const removed = ops.map((r) => r.op).lastIndexOf('remove');
  const stamps = ops.slice(removed + 1).length; // every op after the last remove is a stamp
  const add = (op: RecentOp['op']) => (st: State) => void (st.recent = [...(st.recent ?? []), { list, op }]);
  // What the list held before this connection, when the path did not decide it (a remove forgot the history).
  const history = (hits: number): Cond => (removed >= 0 ? certain(false) : historyCond({ list, hits, seconds: command === '--remove' ? 0 : seconds }, name, address));
  switch (command) {
    case '--set':
      return { cond: inv(certain(true)), record: add('stamp') };
    case '--remove':
      return { cond: inv(stamps > 0 ? certain(true) : history(1)), record: add('remove') };
    case '--rcheck':
    case '--update': {
      const need = Math.max(1, Number(opt('--hitcount')?.values[0] ?? 0) || 0);
      const cond = inv(stamps >= need ? certain(true) : history(need - stamps));
      // --update stamps the address again when the match holds and the entry exists (a lookup that found nothing
      // records nothing): certain for the branch where the un-inverted check held.
      const record = command === '--update' ? (st: State, matched: boolean) => (matched && !invert ? add('stamp')(st) : undefined) : undefined;
      return { cond, record };
    }
    default:
      return { cond: certain(false) }; // iptables refuses a recent match without a command
  }
}

/** "The list saw the address at least `hits` times (in the last `seconds`) before this connection". */
function historyCond(r: RecentTest, name: string, address: string): Cond {
  const key = `recent ${r.list} >=${r.hits}${r.seconds ? ` ${r.seconds}s` : ''}`;
  const [label, labelNot] =
    r.seconds && r.hits === 1
      ? [
          t('assuming recent list {0} saw {1} in the last {2} s before this connection', name, address, r.seconds),
          t('assuming recent list {0} did not see {1} in the last {2} s before this connection', name, address, r.seconds),
        ]
      : r.seconds
        ? [
            t('assuming recent list {0} saw {1} at least {2} times in the last {3} s before this connection', name, address, r.hits, r.seconds),
            t('assuming recent list {0} saw {1} fewer than {2} times in the last {3} s before this connection', name, address, r.hits, r.seconds),
          ]
        : r.hits === 1
          ? [t('assuming {0} is in recent list {1} from earlier connections', address, name), t('assuming {0} is not in recent list {1}', address, name)]
          : [
              t('assuming recent list {0} saw {1} at least {2} times before this connection', name, address, r.hits),
              t('assuming recent list {0} saw {1} fewer than {2} times before this connection', name, address, r.hits),
            ];
  return { ...assume(key, label, labelNot), recent: r };
}
