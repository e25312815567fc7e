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
import { sha256 } from './hash';

const BASE32_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
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
  const bytes = sha256(text);
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (let i = 0; i < 5; i++) {
    buffer = (buffer << 8) | bytes[i]!;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += BASE32_ALPHABET[(buffer >>> bits) & 31];
    }
    buffer &= (1 << bits) - 1;
  }
  return out;
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

const OBJECT_NAME = /^(service|local|external|firewall|endpoint|affinity)-([A-Z2-7]{8})-(.+)$/;

/** Splits a kube-proxy per-service chain or affinity-set name; undefined for other names. */
export function parseNftServiceObjectName(objectName: string): NftServiceObjectName | undefined {
  const m = OBJECT_NAME.exec(objectName);
  if (!m) return undefined;
  const kind = m[1] as NftServiceObjectKind;
  const hashed = m[3]!;
  const truncated = hashed.endsWith('...') && objectName.length - NFT_OBJECT_PREFIX[kind].length === CHAIN_NAME_BASE_LENGTH_MAX;
  const [servicePart, endpointPart] = hashed.split('__', 2) as [string, string | undefined];
  const parts = servicePart.split('/');
  if (parts.length !== 4) return undefined;
  const [namespace, name, protocol, portName] = parts as [string, string, string, string];
  if (!namespace || !name || !/^(tcp|udp|sctp)$/.test(protocol)) return undefined;
  const wantsEndpoint = kind === 'endpoint' || kind === 'affinity';
  if (wantsEndpoint !== (endpointPart !== undefined)) return undefined;
  const out: NftServiceObjectName = { kind, hash: m[2]!, hashed, namespace, name, protocol, portName, truncated };
  if (endpointPart !== undefined) {
    const slash = endpointPart.lastIndexOf('/');
    const port = Number(endpointPart.slice(slash + 1));
    if (slash > 0 && Number.isInteger(port)) out.endpoint = { address: endpointAddressFromName(endpointPart.slice(0, slash)), port };
    else if (!truncated) return undefined;
  }
  return out;
}

/** "10.180.0.1" stays; "fd00.10.180..2.1" becomes "fd00:10:180::2:1" (kube-proxy replaced ':' by '.'). */
export function endpointAddressFromName(text: string): string {
  const parts = text.split('.');
  if (parts.length === 4 && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return text;
  return text.replace(/\./g, ':');
}

/** True when `objectName`'s hash is what kube-proxy would compute for its readable part. */
export function nftObjectHashOk(parsed: NftServiceObjectName): boolean | undefined {
  if (parsed.truncated) return undefined;
  return nftHash8(parsed.hashed) === parsed.hash;
}
