// The accelerator of `add SET MEMBER` lines of ipset save / restore input (most lines of a kube-proxy save),
// without element options, for a set created before and a member without problems: read in place, without
// Chevrotain, into the compact nodes of ../nodes. Makes the model the reference reader makes (the harness test
// checks it); false, having changed nothing, for any other line.
import { lineRange } from '../../../model/range';
import type { IpsetFamily } from '../../../model/ipset';
import { ipv4Value } from '../../../model/address';
import { detached } from '../../detach';
import type { Accelerator } from '../../pipeline';
import { parseMemberParts } from '../members';
import { Ipv4MemberNode, Ipv4PortIpMemberNode, Ipv4PortMemberNode, ValueMemberNode, type AddLine, type AddTarget, type MemberNode } from '../nodes';
import type { IpsetSink } from '../sink';
import { acceleratable, isWordChar } from './words';

/** The accelerator of one parse (its scratch lives as long as the parse). */
export function addLineAccelerator(): Accelerator<IpsetSink> {
  const scratch: { lastAddTarget: AddTarget | undefined; at: AddLine } = {
    /** The set of the last accelerated `add` line and its name there. */
    lastAddTarget: undefined,
    /** Where the line's words are (one object, not one per line). */
    at: { line: 0, target: { set: undefined!, name: '' }, nameStart: 0, nameEnd: 0, memberStart: 0 },
  };
  return (text, lineStart, lineEnd, sink) => {
    if (!acceleratable(sink, lineStart, lineEnd) || !text.startsWith('add ', lineStart)) return false;
    const i = sink.line;
    // Three words separated by spaces, printable ASCII without quotes or `#` (those are the lexer's).
    let nameStart = lineStart + 4;
    while (nameStart < lineEnd && text.charCodeAt(nameStart) === 32) nameStart++;
    // The name of the last line's set, then a space, is where the scan below would stop (that name was scanned).
    const last = scratch.lastAddTarget;
    let nameEnd = nameStart;
    if (last !== undefined && text.startsWith(last.name, nameStart) && text.charCodeAt(nameStart + last.name.length) === 32 && nameStart + last.name.length < lineEnd) nameEnd += last.name.length;
    else while (nameEnd < lineEnd && isWordChar(text.charCodeAt(nameEnd))) nameEnd++;
    if (nameEnd === nameStart || nameEnd === lineEnd || text.charCodeAt(nameEnd) !== 32) return false;
    let memberStart = nameEnd;
    while (memberStart < lineEnd && text.charCodeAt(memberStart) === 32) memberStart++;
    let memberEnd = memberStart;
    while (memberEnd < lineEnd && isWordChar(text.charCodeAt(memberEnd))) memberEnd++;
    if (memberEnd === memberStart) return false;
    for (let k = memberEnd; k < lineEnd; k++) if (text.charCodeAt(k) !== 32) return false;
    // Consecutive lines add to the same set: compare the name in place before looking it up.
    let target = scratch.lastAddTarget;
    if (!target || nameEnd - nameStart !== target.name.length || !text.startsWith(target.name, nameStart) || sink.setByName.get(target.name) !== target.set) {
      const found = sink.setByName.get(text.slice(nameStart, nameEnd));
      // The set's own name string (not a slice of the line, which would keep the dump alive).
      target = scratch.lastAddTarget = found && { set: found, name: found.name };
    }
    const set = target?.set;
    if (!target || !set || !set.type || set.type === 'list:set') return false;
    const memberText = text.slice(memberStart, memberEnd);
    // Columns of the line from here on.
    nameStart -= lineStart;
    nameEnd -= lineStart;
    memberStart -= lineStart;
    memberEnd -= lineStart;
    // One object for every line (the nodes copy what they keep of it).
    const at = scratch.at;
    at.line = i;
    at.target = target;
    at.nameStart = nameStart;
    at.nameEnd = nameEnd;
    at.memberStart = memberStart;
    // kube-proxy's members (`10.96.0.10,udp:53`, `…,10.244.1.3`, `30080`) are read here; any other the general way.
    let member = fastMember(at, memberText, set.type, set.family);
    if (!member) {
      const node = new ValueMemberNode(at);
      node.text = detached(memberText);
      const { parts, problems } = parseMemberParts(node.text, lineRange(i, memberStart, memberEnd), set.type, set.family);
      if (problems.length > 0) return false;
      sink.fillMember(node, parts);
      // KUBE-LOOP-BACK repeats the endpoint: keep one string for both.
      if (node.address2 !== undefined && node.address2 === node.address) node.address2 = node.address;
      member = node;
    }
    sink.addFastMember(set, member, memberEnd);
    return true;
  };
}

/**
 * What parseMemberParts + fillMember give an IPv4 `hash:ip`, `hash:ip,port`, `hash:ip,port,ip` or a
 * `bitmap:port` member of the plainest form (dotted addresses, `tcp|udp|sctp:N` or `N` ports, no ranges, no
 * networks, no names), as a node made without the parts; undefined otherwise. Most are written in the form
 * the node makes from its values (canonicalText): only the others keep their text.
 */
function fastMember(at: AddLine, text: string, type: string, family: IpsetFamily | undefined): MemberNode | undefined {
  if (type === 'bitmap:port') {
    const port = portNumber(text, 0, text.length);
    if (port < 0) return undefined;
    const member = new ValueMemberNode(at);
    member.port = port;
    if (!plainNumber(text, 0, text.length)) member.text = detached(text);
    return member;
  }
  const ipPort = type === 'hash:ip,port';
  const ipPortIp = type === 'hash:ip,port,ip';
  if (family !== 'inet' || (type !== 'hash:ip' && !ipPort && !ipPortIp)) return undefined;
  const c1 = text.indexOf(',');
  if (type === 'hash:ip') {
    const address = c1 < 0 ? ipv4Value(text, 0, text.length) : NaN;
    return Number.isNaN(address) ? undefined : new Ipv4MemberNode(at, address);
  }
  if (c1 < 0) return undefined;
  const c2 = text.indexOf(',', c1 + 1);
  if (ipPort ? c2 >= 0 : c2 < 0 || text.indexOf(',', c2 + 1) >= 0) return undefined;
  const portEnd = ipPort ? text.length : c2;
  // The int32 value (a small integer from the start: no boxed number, no slice of the text).
  const address = ipv4Value(text, 0, c1);
  if (Number.isNaN(address)) return undefined;
  const colon = text.indexOf(':', c1 + 1);
  let protocol: 0 | 1 | 2 = 0; // tcp (also when omitted), udp, sctp: Ipv4PortMemberNode's numbering
  let portStart = c1 + 1;
  if (colon >= 0 && colon < portEnd) {
    const length = colon - c1 - 1;
    if (length === 3 && text.startsWith('tcp', c1 + 1)) protocol = 0;
    else if (length === 3 && text.startsWith('udp', c1 + 1)) protocol = 1;
    else if (length === 4 && text.startsWith('sctp', c1 + 1)) protocol = 2;
    else return undefined;
    portStart = colon + 1;
  }
  const port = portNumber(text, portStart, portEnd);
  if (port < 0) return undefined;
  let member: MemberNode;
  if (ipPortIp) {
    // KUBE-LOOP-BACK repeats the endpoint (a dotted address is determined by its value).
    const address2 = ipv4Value(text, c2 + 1, text.length);
    if (Number.isNaN(address2)) return undefined;
    member = new Ipv4PortIpMemberNode(at, address, protocol, port, address2);
  } else member = new Ipv4PortMemberNode(at, address, protocol, port);
  // ipv4Value takes only addresses written as canonicalText writes them: only the port's form can differ.
  if (portStart === c1 + 1 || !plainNumber(text, portStart, portEnd)) member.text = detached(text);
  return member;
}

/** Whether the digits at [start, end) are written as String() writes their number (no leading zero). */
function plainNumber(text: string, start: number, end: number): boolean {
  return end - start === 1 || text.charCodeAt(start) !== 48;
}

/** The port at [start, end) when it is digits only, at most 65535 (what parsePort accepts as a number); else -1. */
function portNumber(text: string, start: number, end: number): number {
  if (end <= start || end - start > 5) return -1;
  let n = 0;
  for (let k = start; k < end; k++) {
    const c = text.charCodeAt(k);
    if (c < 48 || c > 57) return -1;
    n = n * 10 + (c - 48);
  }
  return n <= 65535 ? n : -1;
}
