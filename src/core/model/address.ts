// The one address library: IPv4 and IPv6 addresses and prefixes (as bigints, with hand-written fast paths for
// the dotted IPv4 text of large dumps), and the one `host:port` formatter. Parsers, catalogs, trace, explain,
// graph and cluster read and print addresses through it.
export type Family = 4 | 6;

export interface Address {
  family: Family;
  value: bigint;
}

export interface Prefix {
  family: Family;
  network: bigint;
  bits: number;
}

export function parseAddress(text: string): Address | undefined {
  const t = text.trim().replace(/^\[|\]$/g, '');
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(t)) {
    const parts = t.split('.').map(Number);
    if (parts.some((p) => p > 255)) return undefined;
    return { family: 4, value: BigInt(((parts[0] << 24) >>> 0) + (parts[1] << 16) + (parts[2] << 8) + parts[3]) };
  }
  if (!t.includes(':') || !/^[0-9a-fA-F:.]+$/.test(t)) return undefined;
  let head = t;
  let tail: number[] = [];
  const lastColon = t.lastIndexOf(':');
  if (t.slice(lastColon + 1).includes('.')) {
    const v4 = parseAddress(t.slice(lastColon + 1));
    if (!v4) return undefined;
    tail = [Number(v4.value >> 16n), Number(v4.value & 0xffffn)];
    head = t.slice(0, lastColon + 1); // "::ffff:" or "64:ff9b::"
    if (!head.endsWith('::')) head = head.slice(0, -1);
  }
  const halves = head.split('::');
  if (halves.length > 2) return undefined;
  const groups = (s: string) => (s === '' ? [] : s.split(':').map((g) => (/^[0-9a-fA-F]{1,4}$/.test(g) ? parseInt(g, 16) : NaN)));
  const left = groups(halves[0]);
  const right = halves.length === 2 ? groups(halves[1]) : [];
  const elided = 8 - left.length - right.length - tail.length; // `::` stands for at least one group
  if (halves.length === 2 && elided < 1) return undefined;
  const all = halves.length === 2 ? [...left, ...Array<number>(elided).fill(0), ...right, ...tail] : [...left, ...tail];
  if (all.length !== 8 || all.some((g) => Number.isNaN(g) || g < 0)) return undefined;
  let value = 0n;
  for (const g of all) value = (value << 16n) | BigInt(g);
  return { family: 6, value };
}

/**
 * An address a person typed (command line, input box, setting): as parseAddress, but an IPv4 part with a
 * leading zero is refused. inet_aton (ping, curl) reads `010` as octal 8 and inet_pton refuses it, so
 * reading it either way would surprise someone.
 */
export function parseUserAddress(text: string): Address | undefined {
  return hasLeadingZeroPart(text) ? undefined : parseAddress(text);
}

/** `010.96.0.10`, `::ffff:10.096.0.1`: an IPv4 part written with a leading zero. */
export function hasLeadingZeroPart(text: string): boolean {
  const dotted = text.trim().replace(/\]$/, '');
  return dotted
    .slice(dotted.lastIndexOf(':') + 1)
    .split('.')
    .some((part, _, parts) => parts.length > 1 && /^0\d/.test(part));
}

function maskBits(mask: Address): number | undefined {
  const width = mask.family === 4 ? 32 : 128;
  let bits = 0;
  let seenZero = false;
  for (let i = width - 1; i >= 0; i--) {
    const one = ((mask.value >> BigInt(i)) & 1n) === 1n;
    if (one && seenZero) return undefined;
    if (one) bits++;
    else seenZero = true;
  }
  return bits;
}

/** `10.0.0.0/8`, `10.0.0.1`, `192.168.0.0/255.255.0.0`, `fd00::/8`. */
export function parsePrefix(text: string): Prefix | undefined {
  const [addr, len] = text.split('/');
  const a = parseAddress(addr);
  if (!a) return undefined;
  const width = a.family === 4 ? 32 : 128;
  let bits = width;
  if (len !== undefined) {
    if (/^\d+$/.test(len)) bits = Number(len);
    else {
      const m = parseAddress(len);
      const b = m && m.family === a.family ? maskBits(m) : undefined;
      if (b === undefined) return undefined;
      bits = b;
    }
  }
  if (bits > width) return undefined;
  const shift = BigInt(width - bits);
  return { family: a.family, network: (a.value >> shift) << shift, bits };
}

export function prefixContains(p: Prefix, a: Address): boolean {
  if (p.family !== a.family) return false;
  const width = p.family === 4 ? 32 : 128;
  const shift = BigInt(width - p.bits);
  return (a.value >> shift) << shift === p.network;
}

export function formatAddress(a: Address): string {
  if (a.family === 4) {
    const v = Number(a.value);
    return [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255].join('.');
  }
  const groups: number[] = [];
  for (let i = 7; i >= 0; i--) groups.push(Number((a.value >> BigInt(i * 16)) & 0xffffn));
  // RFC 5952: compress the longest run of zero groups (length ≥ 2).
  let best = -1;
  let bestLen = 0;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best < 0) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLen).join(':')}`;
}

export function sameAddress(a: string, b: string): boolean {
  const x = parseAddress(a);
  const y = parseAddress(b);
  return Boolean(x && y && x.family === y.family && x.value === y.value);
}

export function isLoopback(a: Address): boolean {
  return a.family === 4 ? a.value >> 24n === 127n : a.value === 1n;
}

/** An address as this project prints it (RFC 5952 for IPv6); text that is no address comes back unchanged. */
export function canonicalAddress(text: string | undefined): string {
  return (text ? addressText(text) : undefined) ?? text ?? '';
}

/** The address as formatAddress writes it, or undefined when it is none. */
export function addressText(text: string): string | undefined {
  if (isIpv4(text)) return text; // most addresses of a dump: no number to build
  const a = parseAddress(text);
  return a ? formatAddress(a) : undefined;
}

/**
 * A dotted IPv4 address: four groups of one to three digits, each at most 255, without leading zeros (so also
 * the canonical spelling of its address).
 */
export function isIpv4(text: string): boolean {
  return ipv4Number(text) !== undefined;
}

/**
 * The value (0 to 2^32 - 1) of an address isIpv4 accepts, else undefined; `leadingZeros` also accepts groups
 * such as `010`. Of the text at [start, end) when given (parsers read addresses in place, without a slice).
 * Hand-written: the parsers and the IPVS catalog ask for every address of a dump, the trace for every key of its
 * indexes (docs/performance.md#memory).
 */
export function ipv4Number(text: string, leadingZeros = false, start = 0, end = text.length): number | undefined {
  const n = end - start;
  if (n < 7 || n > 15) return undefined;
  let dots = 0;
  let octet = 0;
  let digits = 0;
  let value = 0;
  for (let k = start; k <= end; k++) {
    const c = k < end ? text.charCodeAt(k) : 46; // the end closes the last group like a dot
    if (c === 46) {
      if (digits === 0 || octet > 255) return undefined;
      if (k < end && ++dots > 3) return undefined;
      value = value * 256 + octet;
      octet = 0;
      digits = 0;
    } else if (c >= 48 && c <= 57) {
      if (digits === 1 && octet === 0 && !leadingZeros) return undefined; // a leading zero
      octet = octet * 10 + (c - 48);
      if (++digits > 3) return undefined;
    } else {
      return undefined;
    }
  }
  return dots === 3 ? value : undefined;
}

/**
 * The 32-bit value (as an int32, a small integer for Map keys) of the dotted IPv4 address at [start, end), when
 * isIpv4 accepts it (so the text is determined by the value); NaN otherwise.
 */
export function ipv4Value(text: string, start: number, end: number): number {
  const value = ipv4Number(text, false, start, end);
  return value === undefined ? NaN : value | 0;
}

/**
 * The number of the endpoint text at [start, end) when it is a dotted IPv4 address isIpv4 accepts and a port of
 * digits as String() writes them, at most 65535 (the text is determined by the number); NaN for any other text.
 */
export function endpointNumber(text: string, start: number, end: number): number {
  const colon = text.indexOf(':', start);
  if (colon < 0 || colon >= end) return NaN;
  const value = ipv4Number(text, false, start, colon);
  if (value === undefined || end - colon < 2 || end - colon > 6 || (end - colon > 2 && text.charCodeAt(colon + 1) === 48)) return NaN;
  let port = 0;
  for (let k = colon + 1; k < end; k++) {
    const c = text.charCodeAt(k);
    if (c < 48 || c > 57) return NaN;
    port = port * 10 + (c - 48);
  }
  return port <= 65535 ? value * 65536 + port : NaN;
}

/** A syntactically valid IPv6 address (with an optional embedded IPv4 tail), no zone, no brackets. */
export function isIpv6(text: string): boolean {
  if (!/^[0-9A-Fa-f:.]+$/.test(text) || !text.includes(':')) return false;
  let s = text;
  const lastColon = s.lastIndexOf(':');
  const tail = s.slice(lastColon + 1);
  if (tail.includes('.')) {
    if (!isIpv4(tail)) return false;
    s = s.slice(0, lastColon + 1) + '0:0';
  }
  const group = (g: string) => /^[0-9A-Fa-f]{1,4}$/.test(g);
  const groups = (p: string) => (p === '' ? [] : p.split(':'));
  const halves = s.split('::');
  if (halves.length > 2) return false;
  if (halves.length === 2) {
    const all = [...groups(halves[0]), ...groups(halves[1])];
    return all.length <= 7 && all.every(group);
  }
  const all = s.split(':');
  return all.length === 8 && all.every(group);
}

/**
 * `host:port` as every part of the project prints it: an IPv6 address in brackets (by default when the address
 * has a colon; ipvsadm's model says so by its family), `*` for no address (any address: a NodePort), the host
 * alone when there is no port.
 */
export function formatHostPort(address: string | undefined, port?: number | string, ipv6 = address !== undefined && address.includes(':')): string {
  const host = address === undefined ? '*' : ipv6 ? `[${address}]` : address;
  return port === undefined ? host : `${host}:${port}`;
}
