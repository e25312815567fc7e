// kube-proxy's object naming in nftables mode (pkg/proxy/nftables/proxier.go, hashAndTruncate,
// servicePortChainNameBase, servicePortEndpointChainNameBase):
//
//   base     = "<ns>/<name>/<protocol>/<portName>"                    (portName may be empty: "ns/svc/tcp/")
//   endpoint = base + "__<ip>/<port>"                                 (IPv6 colons become dots)
//   object   = <prefix> + base32.StdEncoding(sha256(base|endpoint))[:8] + "-" + base|endpoint
//              truncated to 237 characters + "..." when longer than 240 (never happens for service chains)
//   prefixes: service- (Cluster policy), local- (Local policy), external-, firewall-, endpoint-, affinity- (sets)
//
// Checked against kube-proxy's own test expectations: service-ULMVA6XW-ns1/svc1/tcp/p80,
// endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80, endpoint-2CRNCTTE-ns1/svc1/tcp/p80__fd00.10.180..2.1/80.
// The same SHA-256 as the iptables chain names (plain JavaScript for ASCII names: a large dump has a hundred
// thousand of them).
import { base32Prefix, hasBase32Prefix, sha256 } from './hash';
import { ipv4Number } from '../model/address';

/** knftables.NameLengthMax (256) minus kube-proxy's longest prefix allowance (16). */
const CHAIN_NAME_BASE_LENGTH_MAX = 240;

export type NftServiceObjectKind = 'service' | 'local' | 'external' | 'firewall' | 'endpoint' | 'affinity';

export const NFT_OBJECT_PREFIX: Record<NftServiceObjectKind, string> = {
  service: 'service-',
  local: 'local-',
  external: 'external-',
  firewall: 'firewall-',
  endpoint: 'endpoint-',
  affinity: 'affinity-',
};

/** The first 8 characters of RFC 4648 base32 of sha256(text) (5 bytes = exactly 8 characters). */
export function nftHash8(text: string): string {
  return base32Prefix(sha256(text), 8);
}

function hashAndTruncate(name: string): string {
  let out = `${nftHash8(name)}-${name}`;
  if (out.length > CHAIN_NAME_BASE_LENGTH_MAX) out = `${out.slice(0, CHAIN_NAME_BASE_LENGTH_MAX - 3)}...`;
  return out;
}

/** "ns/name/protocol/portName" (protocol lower case). */
export function nftServicePortBase(namespace: string, name: string, protocol: string, portName: string): string {
  return `${namespace}/${name}/${protocol.toLowerCase()}/${portName}`;
}

/** The part after "service-", "local-", "external-" and "firewall-": "ULMVA6XW-ns1/svc1/tcp/p80". */
export function nftServiceChainNameBase(namespace: string, name: string, protocol: string, portName: string): string {
  return hashAndTruncate(nftServicePortBase(namespace, name, protocol, portName));
}

/** The part after "endpoint-" and "affinity-": "5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80". */
export function nftEndpointChainNameBase(namespace: string, name: string, protocol: string, portName: string, address: string, port: number): string {
  return hashAndTruncate(`${nftServicePortBase(namespace, name, protocol, portName)}__${address.replace(/:/g, '.')}/${port}`);
}

export interface NftServiceObjectName {
  kind: NftServiceObjectKind;
  /** The 8-character hash as written. */
  hash: string;
  /** What the hash covers (the name after "<HASH>-"). */
  hashed: string;
  namespace: string;
  name: string;
  protocol: string;
  portName: string;
  /** Endpoint and affinity names: the endpoint as written in the name (IPv6 with dots) and its port. */
  endpoint?: { address: string; port: number };
  /** The name was cut at 240 characters ("..."): its hash cannot be checked. */
  truncated: boolean;
}

/** The kind a name's prefix gives (`service-` … `affinity-`), or undefined. */
function kindOfPrefix(objectName: string): NftServiceObjectKind | undefined {
  switch (objectName.charCodeAt(0)) {
    case 115: // s
      return objectName.startsWith('service-') ? 'service' : undefined;
    case 108: // l
      return objectName.startsWith('local-') ? 'local' : undefined;
    case 101: // e
      return objectName.startsWith('endpoint-') ? 'endpoint' : objectName.startsWith('external-') ? 'external' : undefined;
    case 102: // f
      return objectName.startsWith('firewall-') ? 'firewall' : undefined;
    case 97: // a
      return objectName.startsWith('affinity-') ? 'affinity' : undefined;
  }
  return undefined;
}

/** `[A-Z2-7]{8}-` at `at`. */
function isHashAt(objectName: string, at: number): boolean {
  for (let i = at; i < at + 8; i++) {
    const c = objectName.charCodeAt(i);
    if (!((c >= 65 && c <= 90) || (c >= 50 && c <= 55))) return false;
  }
  return objectName.charCodeAt(at + 8) === 45;
}

/** What `.` does not match in a regular expression without the s flag. */
const LINE_TERMINATOR = /[\n\r\u2028\u2029]/;

/** Whether the name is one kube-proxy cut to its length limit (its hash is then not checked). */
function isTruncatedName(objectName: string, prefixLength: number): boolean {
  return objectName.endsWith('...') && objectName.length - prefixLength === CHAIN_NAME_BASE_LENGTH_MAX;
}

/** Where nftServiceObjectKind found the parts of the last name it accepted (indices into the name). */
const scanned = { prefixLength: 0, slash1: 0, slash2: 0, slash3: 0, serviceEnd: 0, split: -1, truncated: false };

/**
 * The kind of a kube-proxy per-service chain or affinity-set name, or undefined for other names; the positions
 * of its parts go to `scanned`. The name is `^(service|local|external|firewall|endpoint|affinity)-([A-Z2-7]{8})-(.+)$`
 * with the readable part split at its first `__` (up to a second one) and at `/`; written out by hand, as a large
 * dump has 110,000 names, and without making the parts (the catalog keeps none of an endpoint name's).
 */
export function nftServiceObjectKind(objectName: string): NftServiceObjectKind | undefined {
  const kind = kindOfPrefix(objectName);
  if (kind === undefined) return undefined;
  const prefixLength = NFT_OBJECT_PREFIX[kind].length;
  const hashedStart = prefixLength + 9;
  if (objectName.length <= hashedStart || !isHashAt(objectName, prefixLength)) return undefined;
  // The prefix and hash have no line terminator: the readable part has none when the name has none.
  if (LINE_TERMINATOR.test(objectName)) return undefined;
  const truncated = isTruncatedName(objectName, prefixLength);
  // hashed.split('__', 2): the service part, and the endpoint part up to a second `__`.
  const split = objectName.indexOf('__', hashedStart);
  const serviceEnd = split < 0 ? objectName.length : split;
  // servicePart.split('/') must give four parts: namespace and name not empty, a known protocol.
  const slash1 = objectName.indexOf('/', hashedStart);
  const slash2 = slash1 < 0 ? -1 : objectName.indexOf('/', slash1 + 1);
  const slash3 = slash2 < 0 ? -1 : objectName.indexOf('/', slash2 + 1);
  if (slash3 < 0 || slash3 >= serviceEnd) return undefined;
  const slash4 = objectName.indexOf('/', slash3 + 1);
  if (slash4 >= 0 && slash4 < serviceEnd) return undefined;
  if (slash1 === hashedStart || slash2 === slash1 + 1) return undefined;
  if (!isProtocolAt(objectName, slash2 + 1, slash3)) return undefined;
  const wantsEndpoint = kind === 'endpoint' || kind === 'affinity';
  if (wantsEndpoint !== split >= 0) return undefined;
  if (split >= 0 && !truncated) {
    // The endpoint part must end in "/<integer>" (what Number() reads as one), after something.
    const second = objectName.indexOf('__', split + 2);
    const partEnd = second < 0 ? objectName.length : second;
    const slash = objectName.lastIndexOf('/', partEnd - 1);
    if (slash <= split + 2 || !isIntegerText(objectName, slash + 1, partEnd)) return undefined;
  }
  scanned.prefixLength = prefixLength;
  scanned.slash1 = slash1;
  scanned.slash2 = slash2;
  scanned.slash3 = slash3;
  scanned.serviceEnd = serviceEnd;
  scanned.split = split;
  scanned.truncated = truncated;
  return kind;
}

/**
 * The Service port part of a kube-proxy endpoint chain's name (`endpoint-HASH-ns/svc/tcp/p80__10.0.0.1/80` →
 * `ns/svc/tcp/p80`), or undefined for other names.
 */
export function nftEndpointServicePart(objectName: string): string | undefined {
  if (nftServiceObjectKind(objectName) !== 'endpoint') return undefined;
  return objectName.slice(scanned.prefixLength + 9, scanned.serviceEnd);
}

/** "tcp", "udp" or "sctp" from `from` to `to`. */
function isProtocolAt(text: string, from: number, to: number): boolean {
  const length = to - from;
  if (length === 3) return text.startsWith('tcp', from) || text.startsWith('udp', from);
  return length === 4 && text.startsWith('sctp', from);
}

/** Number.isInteger(Number(text.slice(from, to))); plain digits (most ports) without making the slice. */
function isIntegerText(text: string, from: number, to: number): boolean {
  if (to - from <= 9) {
    let digits = true;
    for (let i = from; i < to && digits; i++) {
      const c = text.charCodeAt(i);
      digits = c >= 48 && c <= 57;
    }
    if (digits) return true;
  }
  return Number.isInteger(Number(text.slice(from, to)));
}

/**
 * For names nftServiceObjectKind accepts: true when the hash matches the readable part, false when it does not,
 * undefined when the name was truncated (as nftObjectHashOk of the parsed name), without making the hash's text.
 */
export function nftObjectNameHashOk(objectName: string, kind: NftServiceObjectKind): boolean | undefined {
  const prefixLength = NFT_OBJECT_PREFIX[kind].length;
  if (isTruncatedName(objectName, prefixLength)) return undefined;
  return hasBase32Prefix(sha256(objectName.slice(prefixLength + 9)), 8, objectName, prefixLength);
}

/**
 * Splits a kube-proxy per-service chain or affinity-set name (see nftServiceObjectKind); undefined for other names.
 */
export function parseNftServiceObjectName(objectName: string): NftServiceObjectName | undefined {
  const kind = nftServiceObjectKind(objectName);
  if (kind === undefined) return undefined;
  const { prefixLength, slash1, slash2, slash3, serviceEnd, split, truncated } = scanned;
  const out: NftServiceObjectName = {
    kind,
    hash: objectName.slice(prefixLength, prefixLength + 8),
    hashed: objectName.slice(prefixLength + 9),
    namespace: objectName.slice(prefixLength + 9, slash1),
    name: objectName.slice(slash1 + 1, slash2),
    protocol: objectName.slice(slash2 + 1, slash3),
    portName: objectName.slice(slash3 + 1, serviceEnd),
    truncated,
  };
  if (split >= 0) {
    const second = objectName.indexOf('__', split + 2);
    const endpointPart = objectName.slice(split + 2, second < 0 ? objectName.length : second);
    const slash = endpointPart.lastIndexOf('/');
    const port = Number(endpointPart.slice(slash + 1));
    if (slash > 0 && Number.isInteger(port)) out.endpoint = { address: endpointAddressFromName(endpointPart.slice(0, slash)), port };
  }
  return out;
}

/**
 * True when `objectName` parses (parseNftServiceObjectName) to an endpoint `address` and `port`, told without
 * parsing it (a large dump checks 100,000 endpoint chains); false when that takes parsing it. Only for names
 * that parse.
 */
export function nftEndpointNameShows(objectName: string, address: string, port: number): boolean {
  const written = address.replace(/:/g, '.');
  if (written === '' || written.includes('_') || written.includes('/')) return false;
  // The name must end in `__${written}/${port}` (checked piece by piece, not joined into a new string per endpoint), and the
  // endpoint part runs from the name's first `__` to the next one or the end: that tail must be all of it.
  const portText = String(port);
  const tailStart = objectName.length - (2 + written.length + 1 + portText.length);
  return (
    tailStart >= 0 &&
    objectName.startsWith('__', tailStart) &&
    objectName.startsWith(written, tailStart + 2) &&
    objectName.charCodeAt(tailStart + 2 + written.length) === 47 /* / */ &&
    objectName.startsWith(portText, tailStart + 3 + written.length) &&
    objectName.indexOf('__') === tailStart &&
    endpointAddressFromName(written) === address
  );
}

/** "10.180.0.1" stays; "fd00.10.180..2.1" becomes "fd00:10:180::2:1" (kube-proxy replaced ':' by '.'). */
export function endpointAddressFromName(text: string): string {
  return ipv4Number(text, true) !== undefined ? text : text.replace(/\./g, ':');
}

/** True when `objectName`'s hash is what kube-proxy would compute for its readable part. */
export function nftObjectHashOk(parsed: NftServiceObjectName): boolean | undefined {
  if (parsed.truncated) return undefined;
  return nftHash8(parsed.hashed) === parsed.hash;
}
