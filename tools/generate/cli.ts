// Part of the dump generator, a test oracle kept apart from the product: see tools/generate/README.md.
// The argument handling of the dump generator's command line (`node dist/generate.js`, scripts/generate.ts):
// argv in, the files to write (name → text) or a usage error out. Pure: no fs, no process; the script writes
// the files (under --out DIR, or the single file on standard output) and sets the exit status.
import { generateIptablesDump, randomServices, type GenOptions, type GenServicePort } from './iptables';
import { generateIpvsSnapshot, type IpvsGenOptions } from './ipvs';
import { generateNftDump, ipv6Variant, type NftGenOptions } from './nft';
import { parseIP, type Family } from './address';
import { SAMPLE_SERVICES, sampleFiles } from './samples';
import { CLUSTER_CIDR, THIS_NODE, randomCluster } from './cluster';
import { clusterStateFiles } from './cluster-objects';
import { DRIFT_KINDS, scenario, type DriftKind, type Scenario } from './drift';

export const GENERATE_USAGE = `node dist/generate.js — realistic kube-proxy dumps made by the project's own generators

Usage:
  node dist/generate.js [--mode iptables|nftables|ipvs] [--services N] [--endpoints M] [--seed S]
                        [--family ipv4|ipv6] [--style STYLE] [--out DIR] [mode options]
                        [--cluster yaml|json] [--drift KIND[,KIND…]]
  node dist/generate.js --samples DIR       the bundled sample node snapshots (npm run samples)
  node dist/generate.js --help

A random node of N service ports (default 100; some Services have two or three ports) with M endpoints
each (default 10; about 8% have none), from seed S (default 1: same seed, same dump). The dumps are
written to DIR (created if needed; the paths go to standard error), or without --out the single dump of
iptables and nftables mode to standard output. --family ipv6 moves every address into IPv6 ranges.

Cluster state (needs --out):
  --cluster yaml|json   also write the cluster's API objects, as kubectl prints them: DIR/cluster-state.yaml
                        (kubectl get services,endpointslices,nodes -A -o yaml, then the kube-proxy ConfigMap)
                        or DIR/services.json, DIR/nodes.json, DIR/kube-proxy.json. The dump is then node-1's
                        of a four-node, three-zone cluster (pods in each node's podCIDR, some terminating,
                        some Services with topology hints, some headless).
  --drift KIND[,KIND…]  make the API objects and the dump disagree on purpose (implies --cluster yaml) and
                        write the findings a check must report to DIR/expected-findings.json. KIND: all, or
${DRIFT_KINDS.map((k) => `                          ${k}`).join('\n')}

Modes:
  iptables (default)  DIR/node.iptables
      --style iptables-nft-save (default) | iptables-legacy-save | restore-input
      --no-comments   kube-proxy's "large cluster mode": no comments on the per-endpoint rules
  nftables            DIR/node.nft (nft-json: DIR/node.nft.json)
      --style nft-list-ruleset (default) | nft-cmds | nft-json
      --cmds transaction (default) | adds      with --style nft-cmds: kube-proxy's whole transaction or
                                               only its add commands
      --node-ip ADDRESS…  the node's addresses (NodePorts); default 192.168.0.2 / fd00::2
  ipvs                DIR/node.ipvsadm, DIR/node.ipset, DIR/node.iptables (a node snapshot: needs --out)
      --style iptables-nft-save (default) | iptables-legacy-save   the iptables dump's header
      --ipvsadm list (default, ipvsadm -Ln) | save (ipvsadm -Sn)
      --ipset save (default, ipset save) | list (ipset list)
      --node-ip ADDRESS…  the node's addresses (NodePort virtual services); default 192.168.0.10 / fd00::10

Exit status: 0 written, 2 bad usage.`;

export type GenerateMode = 'iptables' | 'nftables' | 'ipvs';

export type GenerateCliResult =
  | { kind: 'help'; text: string }
  | { kind: 'error'; message: string }
  /**
   * The files to write, by path relative to outDir. Without outDir there is exactly one, for standard output.
   * notes: lines for standard error after the files are written.
   */
  | { kind: 'files'; files: Record<string, string>; outDir?: string; notes: string[] };

const MODES: readonly GenerateMode[] = ['iptables', 'nftables', 'ipvs'];
const STYLES: Record<GenerateMode, readonly string[]> = {
  iptables: ['iptables-nft-save', 'iptables-legacy-save', 'restore-input'],
  nftables: ['nft-list-ruleset', 'nft-cmds', 'nft-json'],
  ipvs: ['iptables-nft-save', 'iptables-legacy-save'],
};
const DEFAULT_NODE_IP: Record<'nftables' | 'ipvs', Record<Family, string>> = {
  nftables: { ipv4: '192.168.0.2', ipv6: 'fd00::2' },
  ipvs: { ipv4: '192.168.0.10', ipv6: 'fd00::10' },
};

/** Options that take a value; the set of modes each applies to (undefined: all). */
const VALUE_OPTIONS: Record<string, readonly GenerateMode[] | undefined> = {
  '--mode': undefined,
  '--services': undefined,
  '--endpoints': undefined,
  '--seed': undefined,
  '--family': undefined,
  '--style': undefined,
  '--out': undefined,
  '--samples': undefined,
  '--cmds': ['nftables'],
  '--node-ip': ['nftables', 'ipvs'],
  '--ipvsadm': ['ipvs'],
  '--ipset': ['ipvs'],
  '--cluster': undefined,
  '--drift': undefined,
};
const FLAG_OPTIONS: Record<string, readonly GenerateMode[] | undefined> = {
  '--no-comments': ['iptables'],
  '--help': undefined,
  '-h': undefined,
};
/** Options given more than once add up; any other given twice is an error. */
const REPEATABLE = new Set(['--node-ip']);

function oneOf(option: string, value: string, allowed: readonly string[]): string | undefined {
  return allowed.includes(value) ? undefined : `${option} must be one of ${allowed.join(', ')} (got "${value}")`;
}

function count(option: string, value: string | undefined, fallback: number, min: number): number | string {
  if (value === undefined) return fallback;
  if (!/^-?\d+$/.test(value) || !Number.isSafeInteger(Number(value)) || Number(value) < min) {
    return `${option} must be a whole number${min === 0 ? ' (0 or more)' : ''} (got "${value}")`;
  }
  return Number(value);
}

/**
 * Reads the generator's command line (the arguments after the script's name) and makes the dumps it asks for.
 * Unknown options, modes and styles, options of another mode, and ipvs without --out are usage errors.
 */
export function generateCli(argv: readonly string[]): GenerateCliResult {
  const read = readArgs(argv);
  if ('kind' in read) return read;
  const { values, flags } = read;
  if (flags.has('--help')) return { kind: 'help', text: GENERATE_USAGE };
  const get = (name: string) => values.get(name)?.[0];

  const samples = get('--samples');
  if (samples !== undefined) {
    const others = [...values.keys(), ...flags].filter((name) => name !== '--samples');
    if (others.length > 0) return { kind: 'error', message: `--samples takes no other option (got ${others.join(', ')})` };
    return { kind: 'files', files: sampleFiles(), outDir: samples, notes: [`${SAMPLE_SERVICES.length} service ports per snapshot`] };
  }

  const modeText = get('--mode') ?? 'iptables';
  const badMode = oneOf('--mode', modeText, MODES);
  if (badMode) return { kind: 'error', message: badMode };
  const mode = modeText as GenerateMode;
  for (const [name, modes] of [...Object.entries(VALUE_OPTIONS), ...Object.entries(FLAG_OPTIONS)]) {
    if (modes && !modes.includes(mode) && (values.has(name) || flags.has(name))) {
      return { kind: 'error', message: `${name} applies to ${modes.join(' and ')} mode only, not to ${mode}` };
    }
  }

  const services = count('--services', get('--services'), 100, 0);
  if (typeof services === 'string') return { kind: 'error', message: services };
  const endpoints = count('--endpoints', get('--endpoints'), 10, 0);
  if (typeof endpoints === 'string') return { kind: 'error', message: endpoints };
  const seed = count('--seed', get('--seed'), 1, Number.MIN_SAFE_INTEGER);
  if (typeof seed === 'string') return { kind: 'error', message: seed };
  const familyText = get('--family') ?? 'ipv4';
  const badFamily = oneOf('--family', familyText, ['ipv4', 'ipv6']);
  if (badFamily) return { kind: 'error', message: badFamily };
  const family = familyText as Family;
  const style = get('--style') ?? STYLES[mode][0]!;
  const badStyle = oneOf(`--style of ${mode} mode`, style, STYLES[mode]);
  if (badStyle) return { kind: 'error', message: badStyle };
  const nodeIPs = values.get('--node-ip') ?? [];
  for (const ip of nodeIPs) {
    const parsed = parseIP(ip);
    if (!parsed) return { kind: 'error', message: `--node-ip must be an IP address (got "${ip}")` };
    if (parsed.family !== family) return { kind: 'error', message: `--node-ip ${ip} is not an ${family} address (--family ${family})` };
  }
  const outDir = get('--out');

  const clusterFormat = get('--cluster') ?? (values.has('--drift') ? 'yaml' : undefined);
  let state: Scenario | undefined;
  if (clusterFormat !== undefined) {
    const bad = oneOf('--cluster', clusterFormat, ['yaml', 'json']) ?? (outDir === undefined ? '--cluster and --drift write several files: give --out DIR' : undefined);
    if (bad) return { kind: 'error', message: bad };
    const drifts = driftList(get('--drift'));
    if (typeof drifts === 'string') return { kind: 'error', message: drifts };
    const nodeIP = nodeIPs[0] ?? (mode === 'iptables' ? DEFAULT_NODE_IP.ipvs : DEFAULT_NODE_IP[mode])[family];
    const cluster = randomCluster({ services, endpoints, seed, family, nodeIP, mode });
    state = scenario(cluster, { node: THIS_NODE, family, mode, drifts, seed });
  }
  const random = state ? [] : randomServices(services, endpoints, seed);
  const list: GenServicePort[] = state ? state.services : family === 'ipv6' ? ipv6Variant(random) : random;
  const clusterCIDR = state ? { clusterCIDR: CLUSTER_CIDR[family] } : {};
  const files = dumpFiles({ mode, style, list, family, nodeIPs, flags, get, clusterCIDR, outDir });
  if (typeof files === 'string') return { kind: 'error', message: files };
  if (state) return withClusterState(files, state, clusterFormat as 'yaml' | 'json', outDir!);
  return { kind: 'files', files, ...(outDir !== undefined ? { outDir } : {}), notes: [] };
}

/** The options and flags of the command line, or the usage error. */
function readArgs(argv: readonly string[]): { values: Map<string, string[]>; flags: Set<string> } | GenerateCliResult {
  const values = new Map<string, string[]>();
  const flags = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    if (name in FLAG_OPTIONS) {
      if (eq > 0) return { kind: 'error', message: `${name} takes no value` };
      flags.add(name === '-h' ? '--help' : name);
    } else if (name in VALUE_OPTIONS) {
      let value: string | undefined;
      if (eq > 0) value = arg.slice(eq + 1);
      else if (i + 1 < argv.length && !argv[i + 1]!.startsWith('--')) value = argv[++i];
      if (value === undefined || value === '') return { kind: 'error', message: `${name} needs a value` };
      const list = values.get(name) ?? [];
      if (list.length > 0 && !REPEATABLE.has(name)) return { kind: 'error', message: `${name} is given more than once` };
      list.push(value);
      values.set(name, list);
    } else {
      return { kind: 'error', message: arg.startsWith('-') ? `unknown option ${name}` : `unexpected argument "${arg}"` };
    }
  }
  return { values, flags };
}

interface DumpRequest {
  mode: GenerateMode;
  style: string;
  list: GenServicePort[];
  family: Family;
  nodeIPs: string[];
  flags: Set<string>;
  get: (name: string) => string | undefined;
  clusterCIDR: { clusterCIDR?: string };
  outDir: string | undefined;
}

/** The dump files of the mode, by name, or the usage error's message. */
function dumpFiles(r: DumpRequest): Record<string, string> | string {
  const { mode, style, list, family, nodeIPs, flags, get, clusterCIDR, outDir } = r;
  if (mode === 'iptables') {
    const iptablesStyle = style as GenOptions['style'];
    return {
      'node.iptables': generateIptablesDump({ services: list, style: iptablesStyle, family, comments: !flags.has('--no-comments'), nodeRules: iptablesStyle !== 'restore-input', ...clusterCIDR }),
    };
  } else if (mode === 'nftables') {
    const nftStyle = style as NftGenOptions['style'];
    const cmds = get('--cmds');
    if (cmds !== undefined) {
      if (nftStyle !== 'nft-cmds') return `--cmds applies to --style nft-cmds only, not to ${nftStyle}`;
      const badCmds = oneOf('--cmds', cmds, ['transaction', 'adds']);
      if (badCmds) return badCmds;
    }
    const text = generateNftDump({
      services: list,
      style: nftStyle,
      family,
      nodeIPs: nodeIPs.length > 0 ? nodeIPs : [DEFAULT_NODE_IP.nftables[family]],
      ...(cmds ? { cmds: cmds as NftGenOptions['cmds'] } : {}),
      ...clusterCIDR,
    });
    return { [nftStyle === 'nft-json' ? 'node.nft.json' : 'node.nft']: text };
  } else {
    const ipvsadm = get('--ipvsadm') ?? 'list';
    const badIpvsadm = oneOf('--ipvsadm', ipvsadm, ['list', 'save']);
    if (badIpvsadm) return badIpvsadm;
    const ipset = get('--ipset') ?? 'save';
    const badIpset = oneOf('--ipset', ipset, ['save', 'list']);
    if (badIpset) return badIpset;
    if (outDir === undefined) {
      return 'ipvs mode writes three files (node.ipvsadm, node.ipset, node.iptables): give --out DIR';
    }
    const snapshot = generateIpvsSnapshot({
      services: list,
      family,
      nodeIPs: nodeIPs.length > 0 ? nodeIPs : [DEFAULT_NODE_IP.ipvs[family]],
      style: style as IpvsGenOptions['style'],
      ...clusterCIDR,
    });
    return {
      'node.ipvsadm': snapshot[ipvsadm === 'save' ? 'ipvsadm-save' : 'ipvsadm-list'],
      'node.ipset': snapshot[ipset === 'list' ? 'ipset-list' : 'ipset-save'],
      'node.iptables': snapshot['iptables-save'],
    };
  }
}

function driftList(text: string | undefined): DriftKind[] | string {
  if (text === undefined) return [];
  const kinds = text
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  if (kinds.includes('all')) return [...DRIFT_KINDS];
  const bad = kinds.find((k) => !DRIFT_KINDS.includes(k as DriftKind));
  if (bad !== undefined || kinds.length === 0) return `--drift takes all or some of ${DRIFT_KINDS.join(', ')} (got "${bad ?? text}")`;
  return kinds as DriftKind[];
}

/** The dumps plus the cluster-state file(s) and, with drifts, the findings a check must report. */
function withClusterState(files: Record<string, string>, state: Scenario, format: 'yaml' | 'json', outDir: string): GenerateCliResult {
  const out = { ...files, ...clusterStateFiles(state.cluster, format) };
  const count = (s: string) => state.findings.filter((f) => f.severity === s).length;
  const notes = [`cluster: ${state.cluster.services.length} Services, ${state.cluster.nodes.length} nodes; the dump is ${state.node}'s`];
  const truth = { node: state.node, mode: state.mode, family: state.family, findings: state.findings };
  out['expected-findings.json'] = `${JSON.stringify(truth, null, 2)}\n`;
  notes.push(`expected findings: ${count('error')} error, ${count('warning')} warning, ${count('info')} info (expected-findings.json)`);
  return { kind: 'files', files: out, outDir, notes };
}
