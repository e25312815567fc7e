// `-m set --match-set NAME FLAGS` against an ipset dump: whether the packet's tuple is a member, through an index
// of the set built once.
import type { IpSet } from '../model/ipset';
import { formatAddress, isIpv4, parsePrefix, prefixContains, type Prefix } from '../model/address';
import { addressKey, type State } from './engine';

/** An ipset member with its address dimensions parsed when first compared (undefined: unparsable, never matches). */
interface ParsedMember {
  member: IpSet['members'][number];
  prefixes: (Prefix | undefined)[] | undefined;
}

function memberPrefixes(set: IpSet, parsed: ParsedMember): (Prefix | undefined)[] {
  const m = parsed.member;
  return (parsed.prefixes ??= set.dimensions.map((dim, i) => {
    if (dim !== 'ip' && dim !== 'net') return undefined;
    const text = i === 0 ? m.address : m.address2;
    const prefixLen = i === 0 ? m.prefix : m.prefix2;
    return text ? parsePrefix(prefixLen !== undefined ? `${text}/${prefixLen}` : text) : undefined;
  }));
}

/**
 * An ipset's members indexed by the first dimension when it is one host address or one port: a lookup reads
 * that bucket plus the members the index cannot key (networks, port ranges), not the whole set. Building it
 * parses no address of the usual dotted quads; a member's addresses are parsed when a lookup compares it.
 */
interface IpsetIndex {
  byFirst: Map<string, ParsedMember[]>;
  rest: ParsedMember[];
}

const ipsetIndexes = new WeakMap<IpSet, IpsetIndex>();

function ipsetIndex(set: IpSet): IpsetIndex {
  let index = ipsetIndexes.get(set);
  if (index) return index;
  index = { byFirst: new Map(), rest: [] };
  const dims = set.dimensions;
  for (const m of set.members) {
    if (m.options.nomatch) continue; // never a match (as the linear search has it)
    const parsed: ParsedMember = { member: m, prefixes: undefined };
    let k: string | undefined;
    if (dims[0] === 'ip' || dims[0] === 'net') {
      const host = m.address ? hostOf(m.address, m.prefix) : undefined;
      if (host !== undefined) k = `a|${host}`;
    } else if (dims[0] === 'port' && m.port !== undefined && (m.portTo ?? m.port) === m.port) k = `p|${m.port}`;
    if (k === undefined) index.rest.push(parsed);
    else {
      const list = index.byFirst.get(k);
      if (list) list.push(parsed);
      else index.byFirst.set(k, [parsed]);
    }
  }
  ipsetIndexes.set(set, index);
  return index;
}

/** Whether the packet's tuple (per --match-set flags, one per set dimension) is a member of the ipset. */
export function ipsetContains(set: IpSet, flags: string[], s: State): boolean {
  const dims = set.dimensions;
  const pick = (i: number) => (flags[i] ?? flags[flags.length - 1]) === 'dst';
  const matches = (parsed: ParsedMember): boolean => {
    const m = parsed.member;
    const prefixes = memberPrefixes(set, parsed);
    for (let i = 0; i < dims.length; i++) {
      const dst = pick(i);
      const addr = dst ? s.dst : s.src;
      const port = dst ? s.dport : s.sport;
      const dim = dims[i];
      if (dim === 'ip' || dim === 'net') {
        const p = prefixes[i];
        if (!p || !prefixContains(p, addr)) return false;
      } else if (dim === 'port') {
        if (m.port === undefined || port < m.port || port > (m.portTo ?? m.port)) return false;
        if (m.protocol && m.protocol.toLowerCase() !== s.protocol && set.type !== 'bitmap:port') return false;
      } else {
        return false; // mac, iface, mark, set: not decided here
      }
    }
    return true;
  };
  const index = ipsetIndex(set);
  const dst0 = pick(0);
  const first = dims[0] === 'ip' || dims[0] === 'net' ? `a|${addressKey(dst0 ? s.dst : s.src)}` : dims[0] === 'port' ? `p|${dst0 ? s.dport : s.sport}` : undefined;
  const bucket = first !== undefined ? index.byFirst.get(first) : undefined;
  return (bucket?.some(matches) ?? false) || index.rest.some(matches);
}

/**
 * The address as formatAddress writes it when `address` (with prefix length `bits`, when given apart) is one host:
 * `-d A/32` or `A/128`, an ipset member; undefined for networks, lists and anything else.
 */
export function hostOf(address: string, bits?: number): string | undefined {
  // kube-proxy's `-d 10.96.0.10/32`: already canonical, no number to build.
  if (bits === undefined && address.endsWith('/32')) return hostOf(address.slice(0, -3), 32);
  if ((bits === undefined || bits === 32) && isIpv4(address)) return address;
  const prefix = address.includes(',') ? undefined : parsePrefix(bits !== undefined ? `${address}/${bits}` : address);
  return prefix && prefix.bits === (prefix.family === 4 ? 32 : 128) ? formatAddress({ family: prefix.family, value: prefix.network }) : undefined;
}
