// Addresses and prefixes for the packet simulator: IPv4 as numbers, IPv6 as bigints.
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
  return dotted.slice(dotted.lastIndexOf(':') + 1).split('.').some((part, _, parts) => parts.length > 1 && /^0\d/.test(part));
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
  for (let i = 0; i < 8; ) {
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
 * indexes (issue #8).
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

/** `ip:port`, with IPv6 addresses in brackets. */
export function formatHostPort(address: string, port: number): string {
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
}
