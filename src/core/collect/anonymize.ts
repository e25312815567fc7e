// --anonymize: rewrites a snapshot's addresses and names consistently across its files, so that it analyses the
// same (Service counts, shares, policies) and shows no original address, node, namespace or Service name.
// Addresses: prefix-preserving (each bit flipped by a keyed function of the bits before it, as Crypto-PAn
// does), so CIDRs, ClusterIP ranges and "same subnet" still hold; loopback, link-local, multicast and masks
// stay; MACs and link-local interface ids are replaced. Names: ns-N / svc-N. kube-proxy's chain names hash the Service port name (and the endpoint), so they
// are recomputed for the new names: the snapshot stays free of hash-mismatch hints.
import { createHmac } from 'node:crypto';
import { endpointHash, portProtoHash } from '../kube/hash';
import { nftEndpointChainNameBase, nftServiceChainNameBase } from '../kube/nft-hash';
import type { Service } from '../kube/service';
import { formatAddress, formatHostPort, parseAddress, type Address } from '../model/address';

/** Namespaces and Services every cluster has: kept, they tell nothing and help the reader. */
const KEEP_NAMESPACES = new Set(['default', 'kube-system', 'kube-public', 'kube-node-lease']);
const KEEP_SERVICES = new Set(['default/kubernetes', 'kube-system/kube-dns']);

export class Anonymizer {
  private readonly addresses = new Map<string, string>();
  private readonly namespaces = new Map<string, string>();
  private readonly services = new Map<string, string>();
  /** Old chain-name parts (kube-proxy's hashes, nft object name bases) → new. */
  private readonly chainParts = new Map<string, string>();
  private readonly nodes = new Map<string, string>();
  private readonly words = new Map<string, string>();

  constructor(private readonly key: Uint8Array) {}

  /** Learns the names and chain hashes of the Services the dumps hold (call before rewriting). */
  learn(services: readonly Service[]): void {
    for (const s of services) {
      if (s.anonymous) continue;
      const pair = this.servicePair(s.namespace, s.name);
      const [ns, name] = pair.split('/');
      const proto = s.protocol.toLowerCase();
      const oldSpn = `${s.namespace}/${s.name}${s.portName ? `:${s.portName}` : ''}`;
      const newSpn = `${pair}${s.portName ? `:${s.portName}` : ''}`;
      this.chainParts.set(portProtoHash(oldSpn, proto), portProtoHash(newSpn, proto));
      this.chainParts.set(nftServiceChainNameBase(s.namespace, s.name, proto, s.portName ?? ''), nftServiceChainNameBase(ns, name, proto, s.portName ?? ''));
      for (const e of s.endpoints) {
        const address = this.address(e.address);
        this.chainParts.set(endpointHash(oldSpn, proto, formatHostPort(e.address, e.port)), endpointHash(newSpn, proto, formatHostPort(address, e.port)));
        this.chainParts.set(nftEndpointChainNameBase(s.namespace, s.name, proto, s.portName ?? '', e.address, e.port), nftEndpointChainNameBase(ns, name, proto, s.portName ?? '', address, e.port));
      }
    }
  }

  node(name: string): string {
    let n = this.nodes.get(name);
    if (!n) this.nodes.set(name, (n = `node-${this.nodes.size + 1}`));
    return n;
  }

  /** "ns/name" → its new "ns/name". */
  servicePair(namespace: string, name: string): string {
    const key = `${namespace}/${name}`;
    let pair = this.services.get(key);
    if (pair) return pair;
    const ns = this.namespace(namespace);
    pair = KEEP_SERVICES.has(key) ? key : `${ns}/svc-${this.services.size + 1}`;
    this.services.set(key, pair);
    return pair;
  }

  namespace(namespace: string): string {
    let ns = KEEP_NAMESPACES.has(namespace) ? namespace : this.namespaces.get(namespace);
    if (!ns) this.namespaces.set(namespace, (ns = `ns-${this.namespaces.size + 1}`));
    return ns;
  }

  /** Any other name (pod, zone, host name, label value): `kind-N`, the same for the same value. */
  word(kind: string, value: string): string {
    const key = `${kind}\u0000${value}`;
    let w = this.words.get(key);
    if (!w) this.words.set(key, (w = `${kind}-${this.words.size + 1}`));
    return w;
  }

  /** One address, prefix-preserving; undefined-safe for text that is not one. */
  address(text: string): string {
    const cached = this.addresses.get(text);
    if (cached) return cached;
    const a = parseAddress(text);
    const out = a && linkLocal6(a) ? formatAddress(this.interfaceId(a)) : a && !kept(a) ? formatAddress(this.map(a)) : text;
    this.addresses.set(text, out);
    return out;
  }

  /** A link-local IPv6 address keeps fe80::/64; its interface id (often the MAC, EUI-64) is replaced. */
  private interfaceId(a: Address): Address {
    const low = a.value & ((1n << 64n) - 1n);
    const digest = createHmac('sha256', this.key)
      .update(`eui/${low.toString(16)}`)
      .digest();
    return { family: 6, value: ((a.value >> 64n) << 64n) | BigInt(`0x${digest.subarray(0, 8).toString('hex')}`) };
  }

  /** A MAC address: keyed, locally administered, unicast; all-zero and broadcast stay. */
  mac(text: string): string {
    const lower = text.toLowerCase();
    if (/^(00:){5}00$|^(ff:){5}ff$/.test(lower)) return text;
    const cached = this.addresses.get(lower);
    if (cached) return cached;
    const bytes = [...createHmac('sha256', this.key).update(`mac/${lower}`).digest().subarray(0, 6)];
    bytes[0] = (bytes[0] & 0xfc) | 0x02;
    const out = bytes.map((b) => b.toString(16).padStart(2, '0')).join(':');
    this.addresses.set(lower, out);
    return out;
  }

  private map(a: Address): Address {
    const width = a.family === 4 ? 32 : 128;
    let value = 0n;
    for (let i = 0; i < width; i++) {
      const shift = BigInt(width - 1 - i);
      const bit = (a.value >> shift) & 1n;
      const prefix = (a.value >> (shift + 1n)).toString(16);
      const flip = BigInt(createHmac('sha256', this.key).update(`${a.family}/${i}/${prefix}`).digest()[0] & 1);
      value |= (bit ^ flip) << shift;
    }
    return { family: a.family, value };
  }

  /** A prefix: the mapped network's first `bits` bits, the original host bits (zero in a network address). */
  private prefix(text: string, bits: number): string {
    const a = parseAddress(text);
    if (!a || kept(a)) return `${text}/${bits}`;
    const width = a.family === 4 ? 32 : 128;
    if (bits > width) return `${this.address(text)}/${bits}`;
    const hostMask = (1n << BigInt(width - bits)) - 1n;
    const mapped = parseAddress(this.address(text))!;
    return `${formatAddress({ family: a.family, value: (mapped.value & ~hostMask) | (a.value & hostMask) })}/${bits}`;
  }

  /** Rewrites one file's text in a single pass (nothing rewritten is rewritten again). */
  rewrite(text: string): string {
    const out = text.replace(
      TOKEN,
      (
        m: string,
        mac: string | undefined,
        nftBase: string | undefined,
        hash: string | undefined,
        v4: string | undefined,
        v4bits: string | undefined,
        v6: string | undefined,
        v6bits: string | undefined,
        pair: string | undefined,
      ) => {
        if (mac !== undefined) return this.mac(mac);
        if (nftBase !== undefined) return this.chainParts.get(nftBase) ?? this.unlearnedNftBase(nftBase);
        if (hash !== undefined) return m.slice(0, m.length - 16) + (this.chainParts.get(hash) ?? hash);
        if (v4 !== undefined) return v4bits !== undefined ? this.prefix(v4, Number(v4bits)) : this.address(v4);
        if (v6 !== undefined) return v6bits !== undefined ? this.prefix(v6, Number(v6bits)) : this.address(v6);
        return this.services.get(pair!) ?? m;
      },
    );
    return this.nodes.size === 0 ? out : out.replace(this.nodeWords(), (m) => this.nodes.get(m) ?? m);
  }

  /** An nft object name of a Service the catalog did not list: its hash stays, its names and address do not. */
  private unlearnedNftBase(base: string): string {
    const [ns, name, ...rest] = base.slice(9).split('/');
    const pair = this.services.get(`${ns}/${name}`) ?? `${ns}/${name}`;
    const tail = rest.join('/').replace(/__(\d{1,3}(?:\.\d{1,3}){3})\//, (_, a: string) => `__${this.address(a)}/`);
    return `${base.slice(0, 9)}${pair}/${tail}`;
  }

  /** The node names learned, as whole words. */
  private nodeWords(): RegExp {
    const names = [...this.nodes.keys()].sort((a, b) => b.length - a.length).map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    return new RegExp(`(?<![\\w.-])(?:${names.join('|')})(?![\\w-])`, 'g');
  }
}

/** Addresses that say nothing about a site: unspecified, loopback, link-local, multicast, netmasks. */
function kept(a: Address): boolean {
  if (a.family === 4) {
    const first = Number(a.value >> 24n);
    return first === 0 || first === 127 || first >= 224 || (first === 169 && Number((a.value >> 16n) & 255n) === 254);
  }
  return a.value <= 1n || ((a.value >> 112n) & 0xff00n) === 0xff00n;
}

function linkLocal6(a: Address): boolean {
  return a.family === 6 && ((a.value >> 112n) & 0xffc0n) === 0xfe80n;
}

// One pass: nft object name bases (hash + ns/name/proto/port[__addr/port]), kube-proxy's 16-character chain
// hashes, IPv4 and IPv6 addresses (with a prefix length), namespace/name pairs, and other words (node names).
const TOKEN = new RegExp(
  [
    /(?<![\w:])((?:[0-9a-fA-F]{2}:){5}[0-9a-fA-F]{2})(?![\w:])/.source,
    /(?<![A-Za-z0-9])([A-Z2-7]{8}-[a-z0-9][a-z0-9.-]*\/[a-z0-9][a-z0-9.-]*\/(?:tcp|udp|sctp)\/[a-z0-9-]*(?:__[0-9a-fA-F.]+\/\d+)?)/.source,
    /(?<=KUBE-(?:SVC|SVL|EXT|FW|SEP|XLB)-)([A-Z2-7]{16})(?![A-Z2-7])/.source,
    /(?<![\w.:])(\d{1,3}(?:\.\d{1,3}){3})(?:\/(\d{1,3})(?![\d.]))?(?![\w.])/.source,
    /(?<![\w.:])((?:[0-9a-fA-F]{0,4}:){2,7}[0-9a-fA-F]{0,4})(?:\/(\d{1,3})(?!\d))?(?![\w.:])/.source,
    /(?<![\w.\/-])([a-z0-9][a-z0-9.-]*\/[a-z0-9][a-z0-9.-]*)(?=[:\/"\s,]|$)/.source,
  ].join('|'),
  'gm',
);
