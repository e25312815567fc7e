// An ipset member's text → its typed parts, following the set type (`10.0.0.1,tcp:80` of a hash:ip,port set is
// an address and a port). Read by the reference reader and by the compact nodes when their parts are asked for.
import type { Severity } from '../../model/diagnostics';
import { typeDimensions, type IpsetDimension, type IpsetFamily, type IpsetMemberPart } from '../../model/ipset';
import { lineRange, type Range } from '../../model/range';
import { t } from '../../l10n';
import { isIpv4, isIpv6 } from '../../model/address';
import { parsePort } from '../ipvs/address';
import { detached } from '../detach';

const PORT_PROTOCOLS = new Set(['tcp', 'udp', 'sctp', 'udplite', 'icmp', 'icmpv6', 'ipv6-icmp']);

export type Problem = { severity: Severity; code: string; message: string; range: Range };

/** One address part (`10.0.0.1`, `10.0.0.0/8`, `10.0.0.1-10.0.0.9`, `fd00::/64`). */
function parseAddressPart(part: IpsetMemberPart, family: IpsetFamily | undefined, problems: Problem[]): void {
  const text = part.text;
  const [addrRange, prefixText, ...extra] = text.split('/');
  const [from, to, ...moreRange] = addrRange.split('-');
  const familyOf = (a: string): IpsetFamily | undefined => (isIpv4(a) ? 'inet' : isIpv6(a) ? 'inet6' : undefined);
  part.address = from;
  if (extra.length > 0 || moreRange.length > 0) {
    problems.push({ severity: 'error', code: 'bad-member', message: t('{0} is not an address, a network or an address range.', text), range: part.range });
    return;
  }
  let f = familyOf(from);
  if (!f && /^[A-Za-z][\w.-]*$/.test(from) && to === undefined && prefixText === undefined) {
    problems.push({ severity: 'hint', code: 'hostname', message: t('{0} is a host name: ipset resolves it once, when the line is loaded.', from), range: part.range });
    return;
  }
  if (!f) {
    problems.push({ severity: 'error', code: 'bad-member', message: t('{0} is not an IP address.', from), range: part.range });
    return;
  }
  part.family = f;
  if (to !== undefined) {
    part.addressTo = to;
    if (familyOf(to) !== f) problems.push({ severity: 'error', code: 'bad-member', message: t('{0} is not an address of the same family as {1}.', to, from), range: part.range });
  }
  if (prefixText !== undefined) {
    const max = f === 'inet' ? 32 : 128;
    if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > max) {
      problems.push({ severity: 'error', code: 'bad-member', message: t('/{0} is not a prefix length (0–{1}).', prefixText, max), range: part.range });
    } else {
      part.prefix = Number(prefixText);
      if (part.prefix === 0) problems.push({ severity: 'error', code: 'bad-member', message: t('ipset cannot store a network with prefix length 0.'), range: part.range });
    }
  }
  if (family && f !== family) {
    problems.push({
      severity: 'error',
      code: 'wrong-family',
      message: f === 'inet6' ? t('{0} is an IPv6 address, but the set is family inet (IPv4).', from) : t('{0} is an IPv4 address, but the set is family inet6 (IPv6).', from),
      range: part.range,
    });
  }
}

/** `tcp:80`, `udp:53-55`, `80`, `http`, `icmp:echo-request`, `icmp:8/0`. */
function parsePortPart(part: IpsetMemberPart, bitmap: boolean, problems: Problem[]): void {
  let text = part.text;
  const colon = text.indexOf(':');
  let protocol = 'tcp';
  if (colon >= 0) {
    protocol = text.slice(0, colon).toLowerCase();
    text = text.slice(colon + 1);
    if (!PORT_PROTOCOLS.has(protocol)) {
      problems.push({ severity: 'error', code: 'bad-member', message: t('Unknown protocol {0}: tcp, udp, sctp, udplite, icmp or icmpv6.', protocol), range: part.range });
    }
  }
  if (!bitmap) part.protocol = protocol === 'ipv6-icmp' ? 'icmpv6' : protocol;
  if (protocol === 'icmp' || protocol === 'icmpv6' || protocol === 'ipv6-icmp') {
    part.icmp = text;
    return;
  }
  const [from, to, ...extra] = text.split('-');
  const a = parsePort(from);
  const b = to === undefined ? undefined : parsePort(to);
  if (extra.length > 0 || !a.valid || a.port === undefined || (b && (!b.valid || b.port === undefined))) {
    problems.push({ severity: 'error', code: 'bad-member', message: t('{0} is not a port or a port range.', part.text), range: part.range });
    return;
  }
  part.port = a.port;
  if (b?.port !== undefined) part.portTo = b.port;
}

/** typeDimensions of the set types met (read only here): every member asks for its set's. */
const DIMENSIONS = new Map<string, ReturnType<typeof typeDimensions> | null>();

/** Splits a member into its typed parts following the set type. */
export function parseMemberParts(text: string, textRange: Range, type: string, family: IpsetFamily | undefined): { parts: IpsetMemberPart[]; problems: Problem[] } {
  const problems: Problem[] = [];
  let dims = DIMENSIONS.get(type);
  if (dims === undefined) {
    dims = typeDimensions(type) ?? null;
    // Bounded, and keyed by a copy: a slice of the dump would keep its whole text alive (see detach.ts).
    if (DIMENSIONS.size < 1_000) DIMENSIONS.set(detached(type), dims);
  }
  const line = textRange.start.line;
  const col = textRange.start.character;
  if (!dims) return { parts: [], problems };
  const pieces = text.split(',');
  const expected = dims.dimensions;
  const optionalMac = type === 'bitmap:ip,mac' && pieces.length === 1;
  if (pieces.length !== expected.length && !optionalMac) {
    problems.push({
      severity: 'error',
      code: 'bad-member',
      message: t('A {0} member has {1} parts separated by commas ({2}); this one has {3}.', type, expected.length, expected.join(','), pieces.length),
      range: textRange,
    });
    return { parts: [], problems };
  }
  const parts: IpsetMemberPart[] = [];
  let offset = col;
  pieces.forEach((piece, k) => {
    const dimension: IpsetDimension = expected[k];
    const part: IpsetMemberPart = { dimension, text: piece, range: lineRange(line, offset, offset + piece.length) };
    offset += piece.length + 1;
    switch (dimension) {
      case 'ip':
      case 'net':
        parseAddressPart(part, type.startsWith('bitmap:') ? 'inet' : family, problems);
        break;
      case 'port':
        parsePortPart(part, type === 'bitmap:port', problems);
        break;
      case 'mac':
        if (!/^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}$/.test(piece)) problems.push({ severity: 'error', code: 'bad-member', message: t('{0} is not a MAC address.', piece), range: part.range });
        part.address = piece;
        break;
      case 'iface': {
        const name = piece.startsWith('physdev:') ? piece.slice(8) : piece;
        if (name !== piece) part.physdev = true;
        part.address = name;
        if (name.length === 0 || name.length > 15) problems.push({ severity: 'error', code: 'bad-member', message: t('{0} is not an interface name (1 to 15 characters).', name), range: part.range });
        break;
      }
      case 'mark': {
        const mark = /^(0x[0-9A-Fa-f]+|\d+)$/.test(piece) ? Number(piece) : NaN;
        if (!(mark >= 0 && mark <= 0xffffffff)) problems.push({ severity: 'error', code: 'bad-member', message: t('{0} is not a mark (a 32-bit number).', piece), range: part.range });
        else part.mark = mark;
        break;
      }
      case 'set':
        part.address = piece;
        break;
    }
    parts.push(part);
  });
  return { parts, problems };
}
