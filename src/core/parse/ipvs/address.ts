// Port and count helpers shared by the ipvsadm and ipset parsers (addresses: model/address.ts).
import { nameTable } from '../../model/name-table';

/** Service names of /etc/services (Debian netbase) that show up in `ipvsadm -L` (without -n) and ipset members. */
export const SERVICE_PORTS: Record<string, number> = nameTable({
  tcpmux: 1,
  echo: 7,
  discard: 9,
  daytime: 13,
  'ftp-data': 20,
  ftp: 21,
  ssh: 22,
  telnet: 23,
  smtp: 25,
  time: 37,
  whois: 43,
  tacacs: 49,
  domain: 53,
  bootps: 67,
  bootpc: 68,
  tftp: 69,
  gopher: 70,
  finger: 79,
  http: 80,
  www: 80,
  kerberos: 88,
  'iso-tsap': 102,
  pop3: 110,
  sunrpc: 111,
  auth: 113,
  nntp: 119,
  ntp: 123,
  epmap: 135,
  'netbios-ns': 137,
  'netbios-dgm': 138,
  'netbios-ssn': 139,
  imap2: 143,
  imap: 143,
  snmp: 161,
  'snmp-trap': 162,
  xdmcp: 177,
  bgp: 179,
  ldap: 389,
  https: 443,
  'microsoft-ds': 445,
  kpasswd: 464,
  submissions: 465,
  ssmtp: 465,
  smtps: 465,
  isakmp: 500,
  syslog: 514,
  printer: 515,
  submission: 587,
  ipp: 631,
  ldaps: 636,
  rsync: 873,
  ftps: 990,
  imaps: 993,
  pop3s: 995,
  socks: 1080,
  openvpn: 1194,
  'ms-sql-s': 1433,
  'ms-sql-m': 1434,
  radius: 1812,
  'radius-acct': 1813,
  nfs: 2049,
  'iscsi-target': 3260,
  mysql: 3306,
  'ms-wbt-server': 3389,
  svn: 3690,
  sip: 5060,
  'sip-tls': 5061,
  'xmpp-client': 5222,
  postgresql: 5432,
  amqp: 5672,
  x11: 6000,
  redis: 6379,
  'http-alt': 8080,
  webcache: 8080,
  'bacula-dir': 9101,
  'bacula-fd': 9102,
  'bacula-sd': 9103,
  'zabbix-agent': 10050,
  'zabbix-trapper': 10051,
  'domain-s': 853,
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
