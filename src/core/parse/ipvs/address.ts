// Address and port helpers shared by the ipvsadm and ipset parsers.
import { ipv4Number, isIpv4 } from '../../trace/addr';
import { nameTable } from '../../model/name-table';

// The dotted IPv4 test lives with the other address helpers (trace/addr.ts: activation loads it, and no parser).
export { ipv4Number, isIpv4 } from '../../trace/addr';

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

/** Service names of /etc/services (Debian netbase) that show up in `ipvsadm -L` (without -n) and ipset members. */
export const SERVICE_PORTS: Record<string, number> = nameTable({
  tcpmux: 1, echo: 7, discard: 9, daytime: 13, 'ftp-data': 20, ftp: 21, ssh: 22, telnet: 23, smtp: 25, time: 37,
  whois: 43, tacacs: 49, domain: 53, bootps: 67, bootpc: 68, tftp: 69, gopher: 70, finger: 79, http: 80, www: 80,
  kerberos: 88, 'iso-tsap': 102, pop3: 110, sunrpc: 111, auth: 113, nntp: 119, ntp: 123, epmap: 135,
  'netbios-ns': 137, 'netbios-dgm': 138, 'netbios-ssn': 139, imap2: 143, imap: 143, snmp: 161, 'snmp-trap': 162,
  xdmcp: 177, bgp: 179, ldap: 389, https: 443, 'microsoft-ds': 445, kpasswd: 464, submissions: 465, ssmtp: 465,
  smtps: 465, isakmp: 500, syslog: 514, printer: 515, submission: 587, ipp: 631, ldaps: 636, rsync: 873, ftps: 990,
  imaps: 993, pop3s: 995, socks: 1080, openvpn: 1194, 'ms-sql-s': 1433, 'ms-sql-m': 1434, radius: 1812,
  'radius-acct': 1813, nfs: 2049, 'iscsi-target': 3260, mysql: 3306, 'ms-wbt-server': 3389, svn: 3690, sip: 5060,
  'sip-tls': 5061, 'xmpp-client': 5222, postgresql: 5432, amqp: 5672, x11: 6000, redis: 6379, 'http-alt': 8080,
  webcache: 8080, 'bacula-dir': 9101, 'bacula-fd': 9102, 'bacula-sd': 9103, 'zabbix-agent': 10050,
  'zabbix-trapper': 10051, 'domain-s': 853,
});

/** A port number (`443`) or a known service name (`https`); undefined when neither. */
export function parsePort(text: string): { port?: number; name?: string; valid: boolean } {
  if (/^\d+$/.test(text)) {
    const n = Number(text);
    return { port: n, valid: n <= 65535 };
  }
  if (/^[A-Za-z][\w.+-]*$/.test(text)) {
    const key = text.toLowerCase();
    return { port: SERVICE_PORTS[key], name: text, valid: true };
  }
  return { valid: false };
}

/** Parses a count as ipvsadm prints it: `123`, or shortened `123K` / `45M` / `6G` / `7T` unless --exact. */
export function parseCount(text: string): { value: number; approximate: boolean } | undefined {
  const m = /^(\d+)([KMGT])?$/.exec(text);
  if (!m) return undefined;
  const scale = { K: 1e3, M: 1e6, G: 1e9, T: 1e12 }[m[2] as 'K' | 'M' | 'G' | 'T'] ?? 1;
  return { value: Number(m[1]) * scale, approximate: !!m[2] };
}
