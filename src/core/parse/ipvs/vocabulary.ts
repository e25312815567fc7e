// The words of ipvsadm: schedulers, forwarding methods, the save / restore commands and options, and which
// command takes which option (ipvsadm.c). Read by the reference reader and the sink.
import { IPVS_SCHEDULERS, type IpvsCommand, type IpvsForward, type VirtualService } from '../../model/ipvs';
import { emptyNameTable, nameTable } from '../../model/name-table';

export const SCHEDULERS = new Set<string>(IPVS_SCHEDULERS);
export const SCHEDULER_NAMES = new Map<string, string>(IPVS_SCHEDULERS.map((s) => [s, s]));
export const SCHED_FLAGS = new Set(['sh-fallback', 'sh-port', 'mh-fallback', 'mh-port', 'flag-1', 'flag-2', 'flag-3']);
export const FORWARD_NAMES: Record<string, { forward: IpvsForward; local?: boolean }> = nameTable({
  Masq: { forward: 'masq' },
  Route: { forward: 'route' },
  Tunnel: { forward: 'tunnel' },
  Local: { forward: 'route', local: true },
});
/** Protocol names in /proc/net/ip_vs_conn (`IP` marks persistence templates of fwmark services). */
export const CONNECTION_PROTOCOLS = new Set(['TCP', 'UDP', 'SCTP', 'IP', 'ICMP', 'ICMPv6', 'AH', 'ESP']);

export const COMMANDS: Record<string, IpvsCommand['command']> = nameTable({
  '-A': 'add-service',
  '--add-service': 'add-service',
  '-E': 'edit-service',
  '--edit-service': 'edit-service',
  '-D': 'delete-service',
  '--delete-service': 'delete-service',
  '-a': 'add-server',
  '--add-server': 'add-server',
  '-e': 'edit-server',
  '--edit-server': 'edit-server',
  '-d': 'delete-server',
  '--delete-server': 'delete-server',
  '-C': 'clear',
  '--clear': 'clear',
  '-Z': 'zero',
  '--zero': 'zero',
  '--set': 'set',
});
/** Commands that ipvsadm accepts on its command line but not in `ipvsadm -R` input. */
export const NOT_RESTORABLE = new Set(['-L', '-l', '--list', '-S', '--save', '-R', '--restore', '-h', '--help', '-v', '--version', '--start-daemon', '--stop-daemon']);

type Arity = number | 'optional';
export interface OptionSpec {
  canonical: string;
  arity: Arity;
  /** Which commands accept it. */
  for: 'service-spec' | 'service' | 'server' | 'server-spec' | 'any';
}
export const OPTIONS = emptyNameTable<OptionSpec>();
function option(names: string[], canonical: string, arity: Arity, scope: OptionSpec['for']): void {
  for (const n of names) OPTIONS[n] = { canonical, arity, for: scope };
}
option(['-t', '--tcp-service'], '-t', 1, 'service-spec');
option(['-u', '--udp-service'], '-u', 1, 'service-spec');
option(['--sctp-service'], '--sctp-service', 1, 'service-spec');
option(['-f', '--fwmark-service'], '-f', 1, 'service-spec');
option(['-6', '--ipv6'], '-6', 0, 'service-spec');
option(['-s', '--scheduler'], '-s', 1, 'service');
option(['-p', '--persistent'], '-p', 'optional', 'service');
option(['-M', '--netmask'], '-M', 1, 'service');
option(['--pe'], '--pe', 1, 'service');
option(['-b', '--sched-flags'], '-b', 1, 'service');
option(['-o', '--ops'], '-o', 0, 'service');
option(['-r', '--real-server'], '-r', 1, 'server-spec');
option(['-g', '--gatewaying'], '-g', 0, 'server');
option(['-i', '--ipip'], '-i', 0, 'server');
option(['-m', '--masquerading'], '-m', 0, 'server');
option(['-w', '--weight'], '-w', 1, 'server');
option(['-x', '--u-threshold'], '-x', 1, 'server');
option(['-y', '--l-threshold'], '-y', 1, 'server');
option(['--tun-type'], '--tun-type', 1, 'server');
option(['--tun-port'], '--tun-port', 1, 'server');
option(['--tun-nocsum'], '--tun-nocsum', 0, 'server');
option(['--tun-csum'], '--tun-csum', 0, 'server');
option(['--tun-remcsum'], '--tun-remcsum', 0, 'server');
option(['-n', '--numeric'], '-n', 0, 'any');

export const SERVICE_SPEC_PROTOCOL: Record<string, 'TCP' | 'UDP' | 'SCTP' | 'FWM'> = nameTable({ '-t': 'TCP', '-u': 'UDP', '--sctp-service': 'SCTP', '-f': 'FWM' });

export const DAEMON_RE = /^(master|backup) sync daemon\b/;

/** `TCP ` and the other prefixes of service names, made once (a listing has a name per virtual service). */
const NAME_PREFIXES = new Map(['TCP', 'UDP', 'SCTP', 'FWM'].map((p) => [p, `${p} `]));

/** The protocols of accelerated service lines: the model's name and the service name's prefix. */
export const FAST_PROTOCOLS = new Map((['TCP', 'UDP', 'SCTP'] as const).map((p) => [p as string, { protocol: p.toLowerCase() as VirtualService['protocol'], prefix: NAME_PREFIXES.get(p)! }]));

export function serviceName(protocol: string, endpointText: string): string {
  return (NAME_PREFIXES.get(protocol) ?? `${protocol} `) + endpointText;
}

export function optionAllowed(spec: OptionSpec, command: IpvsCommand['command']): boolean {
  switch (spec.for) {
    case 'any':
      return true;
    case 'service-spec':
      return command !== 'set' && command !== 'clear';
    case 'service':
      return command === 'add-service' || command === 'edit-service';
    case 'server':
      return command === 'add-server' || command === 'edit-server';
    case 'server-spec':
      return command === 'add-server' || command === 'edit-server' || command === 'delete-server';
  }
}

export function flagFits(flag: string, scheduler: string | undefined): boolean {
  if (flag.startsWith('sh-')) return scheduler === 'sh';
  if (flag.startsWith('mh-')) return scheduler === 'mh';
  return true;
}
