// `dataplane`: the command-line face of the core. Thin: read files, call core, print.
import { listingCaveats } from '../core/kube/listing';
import type { IptablesAnalysis } from '../core/analysis';
import { basename, dirname, resolve } from 'node:path';
import { checkSnapshot } from '../core/cluster/check';
import { clusterEndpoints } from '../core/trace/cluster';
import { checkToJson, checkToText, nodeLine } from '../core/cluster/check-format';
import { looksLikeClusterState, mergeClusterStates, readClusterFile } from '../core/cluster/read';
import { analyzeFile, buildSnapshot, leftoversText, type SnapshotFile } from '../core/snapshot';
import type { StatusSummary } from '../core/language/types';
import { catalogToJson, formatShare, servicePortNameString, type Service } from '../core/kube/service';
import { byPosition, countBySeverity, firstError, type Diagnostic } from '../core/model/diagnostics';
import { humanPosition } from '../core/model/range';
import { destinationHasLeadingZero, parseDestination, shownOutcomes, traceSnapshot, tracedService, type Entry, type SnapshotFile as TraceFile, type TraceResult } from '../core/trace';
import { traceToJsonText, traceToText } from '../core/trace/format';
import { formatHostPort, hasLeadingZeroPart, parseAddress, parseUserAddress } from '../core/model/address';
import { runWithBundles } from './bundle';
import { checkOptions, parseArgs, parseSize, UsageError, type Args } from './args';
import { DEFAULT_MAX_BYTES, readInput, type Loaded } from './input';
import { clip, visible } from './text';
import { COLLECT_HELP, collectCommand } from './collect';

const VERSION = '0.1.0';

const HELP = `dataplane ${VERSION} — read a Kubernetes node's Service dataplane from its dumps

Usage:
  dataplane parse FILE|- [FILE…] [--json]     parse dumps, print counts and diagnostics
  dataplane services FILE… [--json]          list Service ports: frontends, endpoints, shares
  dataplane trace FILE… --to ADDRESS:PORT[/tcp|udp|sctp] [--from ADDRESS]
                 [--entry pod|node|external] [--node-ip ADDRESS]… [--cluster FILE]… [--node NAME] [--json]
                                             follow a new connection through the rules: every outcome
                                             with its probability, masquerade and the path, line by line
                                             (with --cluster: each endpoint's Service, EndpointSlice, pod)
  dataplane check FILE… --cluster FILE [--cluster FILE]… [--node NAME] [--json]
                                             compare the node's rules with the cluster's Services and
                                             EndpointSlices: findings, worst Service first
${COLLECT_HELP}
  dataplane --help | --version

FILE is a dump: iptables-save / iptables-restore, nft list ruleset (text or -j JSON), ipvsadm -Ln / -Sn,
ipset save / list ("-" reads standard input, once); the files given together are one node snapshot (IPVS
mode: ipvsadm + ipset + iptables). Only regular text files are read, each at most 100 MiB unless
--max-size BYTES (K, M, G: powers of 1024) says otherwise; a pipe goes to standard input.
A FILE may also be a support bundle: a folder, or a .tar, .tar.gz, .tar.xz or .zip archive (sos report,
Rancher logs collector, cilium sysdump or bugtool, antctl supportbundle, Retina capture, or any folder of
dumps). Archives are extracted into a temporary folder, removed afterwards; paths leaving the archive,
links to outside it, device files and archives expanding past 1 GiB are refused (exit status 2). The
dumps are found by content and grouped per node; the command answers for each node under '== node
NAME ==' (--node NAME picks one; --json needs one). An option that
takes a value takes the next word, whatever it is; after -- every word is a FILE. IPv4 addresses are
written without leading zeros (010 would be octal to some tools).
Exit status: 0 fine; 1 a file has errors (services and trace still answer from what could be read, and
say so on standard error); 2 bad usage, or a file that cannot be read (missing, not a regular file, too
large, binary); 3 internal error (a bug: please report it). Standard output is written only when the
answer is complete (exit 0 or 1).

--json output:
  parse:    {"dialect","producer","counts":{…},"diagnostics":[{"line","column","severity","code","message"}]}
            (an array of those when several files are given)
  services: {"mode":"iptables"|"nftables"|"ipvs","services":[{"namespace","name","portName","protocol",
            "leftover"?,"frontends":[{"kind","address"?,"port","uncertain"?,"why"?}],
            "endpoints":[{"address","port","probability","local"?}],"policies":{…}}],
            "leftovers"?:[{"mode","file","note"}]} (uncertain: the kind is a guess, why says on what;
            leftovers: rules of another kube-proxy mode, typically left by a mode switch)
  trace:    {"packet":{"src","dst","protocol","dport","entry"},"outcomes":[{"verdict","destination"?,
            "probability","masquerade","assumptions":[…],"conditions":[{"condition","holds"}],
            "path":[{"file","line","table","chain","text","note"}]}],"moreOutcomes"}
            (at most 32 outcomes, moreOutcomes counts the rest; warnings and what a returning client gets go
            to standard error). A condition the dumps cannot decide (an interface, an ipset without its dump)
            splits outcomes but has no share: probability is the share of new connections under the outcome's
            conditions (statistic, numgen, IPVS weights); in any one situation (each condition true or false) the
            outcomes whose conditions hold there sum to 1.

  check:    {"node":{"name","inferredFrom"?},"mode","findings":[{"code","severity":"error"|"warning"|"info",
            "service":{"namespace","name","portName","protocol"},"endpoint"?:"ip:port","frontend"?:{"kind",
            "address"?,"port"},"expected"?,"actual"?,"reason","message","evidence":[{"file","line"}]}],
            "summary":{"servicePorts","programmed","findings":{"error","warning","info"}}}
            (exit status 1 when a finding is an error or a warning; see docs/cluster-check.md)

check --cluster: what \`kubectl get services,endpointslices -A -o json\` (or -o yaml, or the lists apart)
prints, optionally with \`kubectl get nodes -o json\` and the kube-proxy ConfigMap; legacy Endpoints are read
for clusters without EndpointSlices. A FILE that is such a list is read as one too. --node names the node the
dumps come from; without it the node is inferred from the addresses the rules name, the endpoints they mark
local, or the folder's name (said on standard error). Problems in a cluster file are printed as
file:line:column on standard error; the rest of it is still used.

trace --entry: pod (default) a pod on this node opens the connection (PREROUTING); node: a process on
the node (OUTPUT); external: a client outside the cluster. --from defaults to an address inside the
cluster CIDR the rules reveal that the connection does not come back to (pod), this node (node) or
203.0.113.99 (external).
`;

type Read = (file: string) => Loaded;

/** Any dump: the language its content (or name) says; iptables when nothing is recognisable. */
function analyzeAny(input: Loaded): SnapshotFile {
  const file = analyzeFile(input.name, input.text);
  if (file) return file;
  return analyzeFile(input.name, input.text, 'iptables')!;
}

function diagnosticJson(d: Diagnostic) {
  const p = humanPosition(d.range.start);
  return { line: p.line, column: p.column, severity: d.severity, code: d.code, message: d.message };
}

function parseCommand(files: string[], json: boolean, out: (s: string) => void, read: Read): number {
  let failed = false;
  const results: unknown[] = [];
  for (const file of files) {
    const input = read(file);
    const { analysis, features } = analyzeAny(input);
    const s = features.statusSummary(analysis);
    const severities = countBySeverity(analysis.diagnostics);
    if (severities.error > 0) failed = true;
    if (json) {
      results.push({
        dialect: s.dialect,
        producer: s.producer ?? null,
        counts: {
          tables: s.tables,
          chains: s.chains,
          rules: s.rules,
          services: s.services,
          lines: input.text.length === 0 ? 0 : input.text.split(/\r\n|\r|\n/).length - (/(\r\n|\r|\n)$/.test(input.text) ? 1 : 0),
          errors: severities.error,
          warnings: severities.warning,
          information: severities.information,
          hints: severities.hint,
        },
        diagnostics: byPosition(analysis.diagnostics).map(diagnosticJson),
      });
    } else {
      out(`${input.name}: ${s.dialect}${s.producer ? ` (${s.producer}${s.dialect === 'iptables' ? `, backend ${s.backend}` : ''})` : ''}, ${s.family}${s.kubeProxyMode ? `, kube-proxy ${s.kubeProxyMode}` : ''}`);
      out(`  ${countsText(s)}`);
      out(`  ${severities.error} errors, ${severities.warning} warnings, ${severities.information} information, ${severities.hint} hints`);
      for (const d of byPosition(analysis.diagnostics)) {
        const p = humanPosition(d.range.start);
        out(`  ${basename(input.name)}:${p.line}:${p.column}: ${d.severity} [${d.code}] ${d.message}`);
      }
    }
  }
  if (json) out(JSON.stringify(results.length === 1 ? results[0] : results, null, 2));
  return failed ? 1 : 0;
}

/**
 * Says on standard error which files have errors (their parts that could be read still answer); returns the exit
 * status: 1 when one has.
 */
function reportErrors(files: SnapshotFile[], err: (s: string) => void): number {
  let status = 0;
  for (const f of files) {
    const error = firstError(f.analysis.diagnostics);
    if (error === undefined) continue;
    const errors = countBySeverity(f.analysis.diagnostics).error;
    // The first in the document, as `dataplane parse` lists them (not the first one found).
    const first = humanPosition(error.range.start);
    err(`warning: ${f.name}: ${errors} ${errors === 1 ? 'error' : 'errors'} (the first at ${first.line}:${first.column}: ${error.message}); the answer reads only what could be parsed — 'dataplane parse' lists them`);
    status = 1;
  }
  return status;
}

function servicesCommand(files: string[], json: boolean, out: (s: string) => void, err: (s: string) => void, read: Read): number {
  // The files are one node snapshot: IPVS mode is read from ipvsadm + ipset + iptables together.
  const snapshot = buildSnapshot(files.map((file) => analyzeAny(read(file))));
  const status = reportErrors(snapshot.files, err);
  const catalogs = snapshot.catalogs;
  const leftovers = snapshot.leftovers.map((l) => ({ mode: l.of, file: snapshot.files[l.fileIndex].name, note: leftoversText(l, snapshot.mode) }));
  if (json) {
    out(JSON.stringify(catalogToJson(catalogs, { mode: snapshot.mode, leftovers }), null, 2));
    return status;
  }
  const services = catalogs.flatMap((c) => c.services);
  if (services.length === 0) {
    out(
      snapshot.mode === 'ipvs'
        ? 'kube-proxy mode: ipvs (from its ipsets and rules), but no IPVS virtual services: save `ipvsadm -Ln` next to these dumps to list the Services.'
        : 'No kube-proxy Services found (no KUBE-SERVICES rules, kube-proxy nft table or IPVS virtual services).',
    );
    for (const l of leftovers) out(`leftovers: ${l.note}`);
    return status;
  }
  out(`kube-proxy mode: ${snapshot.mode}`);
  for (const l of leftovers) out(`leftovers: ${l.note}`);
  for (const f of snapshot.files) if (f.languageId === 'iptables') for (const note of listingCaveats((f.analysis as IptablesAnalysis).ruleset)) out(`warning: ${f.name}: ${note}`);
  out('');
  for (const c of catalogs) {
    // A catalog of another mode than the snapshot's (iptables rules beside nftables mode) lists leftovers.
    const leftover = c.mode !== snapshot.mode && (snapshot.mode === 'iptables' || snapshot.mode === 'ipvs' || snapshot.mode === 'nftables');
    for (const s of c.services) for (const line of formatService(s, leftover ? c.mode : undefined)) out(line);
  }
  out(`${services.length} service ports`);
  return status;
}

function countsText(s: StatusSummary): string {
  switch (s.dialect) {
    case 'ipvsadm':
      return `${s.chains} virtual services, ${s.rules} real servers`;
    case 'ipset':
      return `${s.chains} sets, ${s.rules} members`;
    default:
      return `${s.tables} tables, ${s.chains} chains, ${s.rules} rules, ${s.services} services`;
  }
}

function formatService(s: Service, leftoverOf?: string): string[] {
  const lines: string[] = [];
  const name = s.anonymous ? `${s.name} (Service name not in the dumps)` : servicePortNameString(s);
  lines.push(`${name} ${s.protocol}${leftoverOf ? ` (${leftoverOf} mode: leftover rules, not the current mode)` : ''}`);
  for (const f of s.frontends) lines.push(`  ${f.kind.padEnd(13)} ${formatHostPort(f.address || undefined, f.port)}${f.kindUncertain ? `  (${f.kindNote ?? 'kind uncertain'})` : ''}`);
  if (s.endpointsNotInDump) lines.push('  (endpoints not in this file: its chain comes from an earlier restore)');
  else if (s.endpoints.length === 0) lines.push(`  (no endpoints: ${s.policies.noEndpoints ?? 'no rule for them in this file'})`);
  for (const e of s.endpoints) {
    lines.push(`  → ${formatHostPort(e.address, e.port).padEnd(22)} ${formatShare(e.probability).padStart(6)}${e.local ? '  local' : ''}`);
  }
  const p = s.policies;
  const flags = [
    p.sessionAffinity ? `affinity ClientIP ${p.sessionAffinity.timeoutSeconds}s` : '',
    p.externalTrafficPolicy === 'Local' ? 'externalTrafficPolicy Local' : '',
    p.internalTrafficPolicy === 'Local' ? 'internalTrafficPolicy Local' : '',
    p.loadBalancerSourceRanges ? `source ranges ${p.loadBalancerSourceRanges.join(',')}` : '',
    p.scheduler ? `scheduler ${p.scheduler}` : '',
  ].filter(Boolean);
  if (p.schedulerNote && p.scheduler !== 'rr' && p.scheduler !== 'wrr') flags.push(p.schedulerNote);
  if (flags.length) lines.push(`  ${flags.join('; ')}`);
  lines.push('');
  return lines;
}

/** An address option's value, as a person types it (see parseUserAddress). */
function userAddress(option: string, value: string): string {
  if (parseUserAddress(value)) return value;
  const hint = hasLeadingZeroPart(value) ? ' (write IPv4 parts without leading zeros: 010 is octal 8 to some tools)' : '';
  throw new UsageError(`${option} ${clip(value)}: not an IP address${hint}`);
}

function traceCommand(args: Args, json: boolean, out: (s: string) => void, err: (s: string) => void, read: Read): number {
  const option = (name: string) => args.values.get(name) ?? [];
  const [to, from, entry] = [option('--to'), option('--from'), option('--entry')];
  const nodeIPs = option('--node-ip').map((ip) => userAddress('--node-ip', ip));
  if (args.files.length === 0) throw new UsageError('trace needs at least one FILE');
  if (to.length !== 1) throw new UsageError('trace needs exactly one --to ADDRESS:PORT[/tcp|udp|sctp]');
  const destination = parseDestination(to[0]);
  if (!destination)
    throw new UsageError(`--to ${clip(to[0])}: expected ADDRESS:PORT[/tcp|udp|sctp], e.g. 10.96.0.10:53/udp or [fd00::10]:443${destinationHasLeadingZero(to[0]) ? ' (IPv4 parts without leading zeros)' : ''}`);
  const entryValue = (entry[0] ?? 'pod') as Entry;
  if (!['pod', 'node', 'external'].includes(entryValue)) throw new UsageError(`--entry ${clip(entryValue)}: expected pod, node or external`);
  if (from[0] !== undefined && parseAddress(userAddress('--from', from[0]))!.family !== parseAddress(destination.address)!.family)
    throw new UsageError(`--from ${clip(from[0])}: not an address of the destination's family`);
  // All files are one node snapshot: iptables, nftables, or IPVS (ipvsadm + ipset + iptables).
  const { dumps, cluster } = splitCluster(args, read);
  if (dumps.length === 0) throw new UsageError('trace needs at least one dump FILE');
  const analysed = dumps.map(analyzeAny);
  let status = reportErrors(analysed, err);
  const files: TraceFile[] = analysed.map((f) => ({ name: f.name, analysis: f.analysis as TraceFile['analysis'] }));
  let result = traceSnapshot(files, { to: destination.address, dport: destination.port, protocol: destination.protocol, from: from[0], entry: entryValue, nodeIPs });
  if (cluster.length > 0) {
    // The cluster state names each outcome's endpoint (Service, EndpointSlice, pod) and says when the API does not offer it.
    const { snapshot, status: readStatus } = checkedSnapshot(args, dumps, cluster, analysed, err);
    status = Math.max(status, readStatus);
    result = clusterEndpoints(snapshot, result);
  }
  const names = files.map((f) => f.name);
  if (json) {
    out(traceToJsonText(result, names));
    for (const w of result.warnings) err(`warning: ${w}`);
    for (const a of adviceLines(result)) err(a);
    for (const n of new Set(shownOutcomes(result).shown.flatMap((o) => o.notes))) err(`note: ${n}`);
  } else {
    for (const line of traceToText(result, names, tracedService(files, result), adviceLines(result))) out(line);
  }
  return status;
}

/** The dumps and the cluster-state files (--cluster, and lists among the FILEs: a snapshot folder's files given with a glob). */
function splitCluster(args: Args, read: Read): { dumps: Loaded[]; cluster: Loaded[] } {
  const dumps: Loaded[] = [];
  const cluster: Loaded[] = (args.values.get('--cluster') ?? []).map(read);
  for (const file of args.files) {
    const input = read(file);
    (looksLikeClusterState(input.text) ? cluster : dumps).push(input);
  }
  return { dumps, cluster };
}

/** The snapshot of the dumps with the cluster state read, merged and checked (--node, else inferred). */
function checkedSnapshot(
  args: Args,
  dumps: Loaded[],
  cluster: Loaded[],
  analysed: SnapshotFile[],
  err: (s: string) => void,
): { snapshot: ReturnType<typeof buildSnapshot>; result: ReturnType<typeof checkSnapshot>; status: number } {
  const nodes = args.values.get('--node') ?? [];
  if (nodes.length > 1) throw new UsageError('take one --node NAME');
  const state = mergeClusterStates(cluster.map((c) => readClusterFile(c.name, c.text)));
  const status = clusterDiagnostics(state.diagnostics, err);
  const snapshot = buildSnapshot(analysed);
  const folder = dumps[0].name === '<stdin>' ? undefined : basename(dirname(resolve(dumps[0].name)));
  const result = checkSnapshot(snapshot, state, { node: nodes[0], folder });
  if (result.node.error)
    throw new UsageError(
      `--node ${clip(nodes[0])}: ${result.node.error}${result.node.candidates?.length ? ` (nodes: ${result.node.candidates.slice(0, 10).join(', ')}${result.node.candidates.length > 10 ? ', …' : ''})` : ''}`,
    );
  snapshot.cluster = { files: cluster.map((c) => c.name), state, check: result };
  return { snapshot, result, status };
}

function checkCommand(args: Args, json: boolean, out: (s: string) => void, err: (s: string) => void, read: Read): number {
  if (args.files.length === 0) throw new UsageError('check needs at least one FILE');
  if ((args.values.get('--node') ?? []).length > 1) throw new UsageError('check takes one --node NAME');
  const { dumps, cluster } = splitCluster(args, read);
  if (cluster.length === 0) throw new UsageError('check needs the cluster state: --cluster FILE (kubectl get services,endpointslices -A -o json)');
  if (dumps.length === 0) throw new UsageError('check needs at least one dump FILE besides the cluster state');
  const { snapshot, result, status: readStatus } = checkedSnapshot(args, dumps, cluster, dumps.map(analyzeAny), err);
  const status = Math.max(readStatus, reportErrors(snapshot.files, err));
  if (json) {
    if (!result.node.name || result.node.inferredFrom) err(`note: ${nodeLine(result.node)}`);
    out(JSON.stringify(checkToJson(result), null, 2));
  } else for (const line of checkToText(result)) out(line);
  const { error, warning } = result.summary.findings;
  return error + warning > 0 ? 1 : status;
}

/** The problems of the cluster files, one line each as file:line:column (the rest of each file is still used). */
function clusterDiagnostics(files: { file: string; diagnostics: Diagnostic[] }[], err: (s: string) => void): number {
  let status = 0;
  for (const f of files) {
    for (const d of byPosition(f.diagnostics)) {
      const p = humanPosition(d.range.start);
      err(`${f.file}:${p.line}:${p.column}: ${d.severity} [${d.code}] ${d.message}`);
      if (d.severity === 'error') status = 1;
    }
  }
  return status;
}

/** The CLI's wording of what would make a trace surer (the editor words it its own way). */
function adviceLines(result: TraceResult): string[] {
  return (result.advice ?? []).map(() => "hint: give this node's address with --node-ip ADDRESS (or the setting dataplane.nodeIPs)");
}

/**
 * Runs the command line. Standard output is held back until the answer is complete: an error exit prints
 * nothing there. An internal error is one line and status 3, never a stack trace (DATAPLANE_DEBUG=1 adds it).
 */
export function run(argv: string[], out: (s: string) => void, err: (s: string) => void): number {
  const lines: string[] = [];
  const errVisible = (s: string) => err(visible(s));
  try {
    const status = dispatch(argv, (s) => lines.push(visible(s)), errVisible);
    for (const line of lines) out(line);
    return status;
  } catch (e) {
    if (e instanceof UsageError) {
      errVisible(`dataplane: ${e.message}\nTry 'dataplane --help'.`);
      return 2;
    }
    const message = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    errVisible(`dataplane: internal error: ${clip(message, 200)}, please report`);
    if (process.env.DATAPLANE_DEBUG) errVisible(e instanceof Error ? String(e.stack) : message);
    return 3;
  }
}

function dispatch(argv: string[], out: (s: string) => void, err: (s: string) => void): number {
  // collect's options are its own (--cluster is a flag there, a FILE elsewhere).
  if (argv[0] === 'collect' && !argv.includes('--help')) return collectCommand(argv.slice(1), out, err);
  const args = parseArgs(argv);
  const json = args.flags.has('--json');
  if (argv.length === 0 || args.flags.has('--help') || args.flags.has('-h') || args.command === 'help') {
    out(HELP);
    return argv.length === 0 ? 2 : 0;
  }
  if (args.flags.has('--version')) {
    out(VERSION);
    return 0;
  }
  const command = args.command;
  if (command !== 'parse' && command !== 'services' && command !== 'trace' && command !== 'check') throw new UsageError(command === undefined ? 'no command' : `unknown command ${clip(command)}`);
  checkOptions(args, command);
  const read = reader(args);
  if (command === 'trace') return traceCommand(args, json, out, err, read);
  if (command === 'check') return checkCommand(args, json, out, err, read);
  if (args.files.length === 0) throw new UsageError(`${command} needs at least one FILE`);
  return command === 'parse' ? parseCommand(args.files, json, out, read) : servicesCommand(args.files, json, out, err, read);
}

/** Reads the files of `args` within --max-size; standard input only once. */
function reader(args: Args): Read {
  const sizes = args.values.get('--max-size') ?? [];
  const maxBytes = sizes.length ? parseSize(sizes[sizes.length - 1]) : DEFAULT_MAX_BYTES;
  if (maxBytes === undefined) throw new UsageError(`--max-size ${clip(sizes[sizes.length - 1])}: expected a number of bytes, e.g. 200M`);
  if (args.files.filter((f) => f === '-').length > 1) throw new UsageError('- (standard input) can be given once');
  return (file) => readInput(file, maxBytes);
}

if (require.main === module) {
  const lines: string[] = [];
  void runWithBundles(
    run,
    process.argv.slice(2),
    (...s) => lines.push(...s),
    (s) => process.stderr.write(s + '\n'),
  ).then((code) => {
    // A reader that stops early (| head) closes the pipe: that is not an error of ours.
    process.stdout.on('error', () => process.exit(code));
    process.stdout.write(lines.length ? lines.join('\n') + '\n' : '', () => process.exit(code));
  });
}
