// Part of the dump generator, a test oracle kept apart from the product: see tools/generate/README.md.
// Addresses as kube-proxy (Go's net.IP / net.IPNet) prints them, for the dump generators: byte arrays, so the
// generators can also sort and hash them the way the kernel does.

export type Family = 'ipv4' | 'ipv6';

export function parseIPv4(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return undefined;
  return parts.map(Number);
}

export function parseIPv6(text: string): number[] | undefined {
  if (!text.includes(':')) return undefined;
  let t = text;
  const lastColon = t.lastIndexOf(':');
  if (t.slice(lastColon + 1).includes('.')) {
    const v4 = parseIPv4(t.slice(lastColon + 1));
    if (!v4) return undefined;
    t = `${t.slice(0, lastColon + 1)}${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`;
  }
  const halves = t.split('::');
  if (halves.length > 2) return undefined;
  const groups = (s: string): number[] | undefined => {
    if (s === '') return [];
    const out: number[] = [];
    for (const g of s.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const left = groups(halves[0]!);
  const right = halves.length === 2 ? groups(halves[1]!) : [];
  if (!left || !right) return undefined;
  let all: number[];
  if (halves.length === 2) {
    const missing = 8 - left.length - right.length;
    if (missing < 1) return undefined;
    all = [...left, ...new Array<number>(missing).fill(0), ...right];
  } else all = left;
  if (all.length !== 8) return undefined;
  return all.flatMap((g) => [g >> 8, g & 255]);
}

export function parseIP(text: string): { family: Family; bytes: number[] } | undefined {
  const t = text.trim();
  const v4 = parseIPv4(t);
  if (v4) return { family: 'ipv4', bytes: v4 };
  const v6 = parseIPv6(t);
  return v6 ? { family: 'ipv6', bytes: v6 } : undefined;
}

/** Dotted quad, or RFC 5952 (the longest run of at least two zero groups, first on ties, becomes "::"). */
export function formatIP(bytes: number[]): string {
  if (bytes.length === 4) return bytes.join('.');
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((bytes[i]! << 8) | bytes[i + 1]!);
  let best = -1;
  let bestLen = 0;
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i >= 2 && j - i > bestLen) [best, bestLen] = [i, j - i];
    i = Math.max(j, i + 1);
  }
  const hex = groups.map((g) => g.toString(16));
  if (best < 0) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLen).join(':')}`;
}

export function familyOf(text: string): Family | undefined {
  const t = text.trim();
  return parseIP(t.includes('/') ? t.slice(0, t.indexOf('/')) : t)?.family;
}

export function canonicalIP(text: string): string {
  const ip = parseIP(text);
  if (!ip) throw new Error(`not an IP address: ${JSON.stringify(text)}`);
  return formatIP(ip.bytes);
}

/** The first `len` bits of `bytes`, the rest cleared. */
function masked(bytes: number[], len: number): number[] {
  return bytes.map((b, i) => b & ((0xff << (8 - Math.max(0, Math.min(8, len - i * 8)))) & 0xff));
}

export interface Cidr {
  bytes: number[];
  len: number;
}

export function parseCIDR(text: string): Cidr {
  const t = text.trim();
  const slash = t.indexOf('/');
  const ip = parseIP(slash < 0 ? t : t.slice(0, slash));
  if (!ip) throw new Error(`not a CIDR: ${JSON.stringify(text)}`);
  const max = ip.bytes.length * 8;
  const len = slash < 0 ? max : Number(t.slice(slash + 1).trim());
  if (!Number.isInteger(len) || len < 0 || len > max) throw new Error(`bad prefix length: ${JSON.stringify(text)}`);
  return { bytes: masked(ip.bytes, len), len };
}

/** "a.b.c.d/len" with the host bits cleared, as Go's (*net.IPNet).String() and iptables print it. */
export function canonicalCIDR(text: string): string {
  const c = parseCIDR(text);
  return `${formatIP(c.bytes)}/${c.len}`;
}

/** Whether `bytes` (an address of the prefix's family) lies inside the prefix. */
export function cidrContains(c: Cidr, bytes: number[]): boolean {
  if (bytes.length !== c.bytes.length) return false;
  return masked(bytes, c.len).every((b, i) => b === c.bytes[i]);
}
