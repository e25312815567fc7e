// kube-proxy's configuration: a KubeProxyConfiguration object, or the kube-proxy ConfigMap that holds one as
// text (kubeadm names the key `config.conf`), reduced to the fields that change the dataplane.
import { t } from '../l10n';
import { field, isObj, type Obj, type ReadContext } from './read-context';
import { readText } from './read-text';
import type { ProxyConfig } from './types';

const KIND = /^\s*kind:\s*["']?KubeProxyConfiguration["']?\s*$|"kind"\s*:\s*"KubeProxyConfiguration"/m;

/** The configuration in a ConfigMap, or undefined when the ConfigMap holds none (it is not kube-proxy's). */
export function readProxyConfigMap(ctx: ReadContext, o: Obj): ProxyConfig | undefined {
  const data = field(o, 'data');
  if (!isObj(data)) return undefined;
  const keys = Object.keys(data).filter((k) => typeof data[k] === 'string' && KIND.test(data[k] as string));
  if (keys.length === 0) return undefined;
  const key = keys.includes('config.conf') ? 'config.conf' : keys[0];
  const meta = field(o, 'metadata');
  ctx.current = `ConfigMap ${isObj(meta) ? `${String(field(meta, 'namespace') ?? '')}/${String(field(meta, 'name') ?? '')}` : ''}`;
  const dataAt = ctx.offsetOf(data, ctx.offsetOf(o));
  const at = ctx.keyOffset(dataAt, key) ?? dataAt;
  const inner = readText(data[key] as string);
  for (const p of inner.problems) ctx.report('warning', 'cluster-bad-proxy-config', t('{0}: {1} cannot be read: {2}', ctx.current, key, p.message), undefined, undefined, at);
  const config = inner.documents.find((d) => isObj(d) && field(d, 'kind') === 'KubeProxyConfiguration');
  if (!isObj(config)) return undefined;
  // Positions inside the embedded text are not the file's: every field points at the key that holds it.
  const fields = readFields(ctx, config, at);
  return { ...fields, source: ctx.source(ctx.lineRange(at)) };
}

/** A KubeProxyConfiguration object written on its own (kube-proxy's --config file). */
export function readProxyConfiguration(ctx: ReadContext, o: Obj): ProxyConfig {
  ctx.current = 'KubeProxyConfiguration';
  const at = ctx.offsetOf(o);
  return { ...readFields(ctx, o, at), source: ctx.source(ctx.lineRange(at)) };
}

function readFields(ctx: ReadContext, c: Obj, at: number): ProxyConfig {
  // Objects from the embedded text have no offsets of their own in this file.
  const offsets = ctx.offsets;
  if (!offsets.has(c)) offsets.set(c, at);
  const out: ProxyConfig = {};
  const mode = ctx.str(c, 'mode', 'mode');
  if (mode !== undefined) out.mode = mode;
  const cidr = ctx.str(c, 'clusterCIDR', 'clusterCIDR');
  if (cidr) out.clusterCIDR = cidr;
  if (field(c, 'nodePortAddresses') !== undefined && field(c, 'nodePortAddresses') !== null) out.nodePortAddresses = ctx.strings(c, 'nodePortAddresses', 'nodePortAddresses');
  const iptables = ctx.obj(c, 'iptables', 'iptables');
  if (iptables && !offsets.has(iptables)) offsets.set(iptables, at);
  const masq = iptables ? ctx.bool(iptables, 'masqueradeAll', 'iptables.masqueradeAll') : undefined;
  if (masq !== undefined) out.masqueradeAll = masq;
  return out;
}
