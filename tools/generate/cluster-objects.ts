// Part of the dump generator, a test oracle kept apart from the product: see tools/generate/README.md.
// The API objects of a generated cluster, as kubectl prints them:
//   kubectl get services,endpointslices -A -o json|yaml   (a List; every item with apiVersion and kind)
//   kubectl get nodes -o json|yaml
//   kubectl -n kube-system get configmap kube-proxy -o json|yaml
// kubectl decodes objects into unstructured maps, so every object's keys print in alphabetical order
// (as kubectl 1.32 prints these objects back: test/unit/generate-cluster-kubectl.test.ts; and as in the
// Service, Pod and CronJob captured from `kubectl get -o json` in a public scanner's test mocks:
// "apiVersion", "kind", "metadata" {"annotations", "creationTimestamp", "labels", "name", "namespace",
// "resourceVersion", "uid"}, "spec" {"clusterIP", "clusterIPs", "internalTrafficPolicy", "ipFamilies",
// "ipFamilyPolicy", "ports", "selector", "sessionAffinity", "type"}, "status" {"loadBalancer": {}}), and a
// List ends with "kind": "List", "metadata": {"resourceVersion": ""}. EndpointSlices are the
// EndpointSlice controller's (pkg/controller/endpointslice, staging/.../endpointslice/reconciler.go):
// generateName "<service>-", labels kubernetes.io/service-name and endpointslice.kubernetes.io/managed-by
// plus the Service's own labels, an ownerReference to the Service, the last-change-trigger-time
// annotation, at most 100 endpoints per slice, one slice per address family, conditions
// ready/serving/terminating always set, and a placeholder slice (`endpoints: null`, `ports: null`) for a
// Service that selects no pod. Endpoint ports carry `name: ""` for an unnamed Service port.
import { Document, stringify } from 'yaml';
import { sha256 } from '../../src/core/kube/hash';
import type { Family } from './address';
import { familiesOf, podAddress, type GenCluster, type GenNode, type GenPod, type GenService } from './cluster';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json | undefined };
type JsonObject = { [key: string]: Json | undefined };

const CREATED = '2026-11-29T10:00:00Z';
const CHANGED = '2026-11-29T11:58:00Z';
const MAX_ENDPOINTS_PER_SLICE = 100;

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/** A deterministic UUID (version 4 layout) for an object. */
export function uidOf(kind: string, namespace: string, name: string): string {
  const h = hex(sha256(`${kind}/${namespace}/${name}`).slice(0, 16));
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Numbers kubectl prints as resourceVersion: increasing, as the objects were written. */
class Versions {
  private n = 4000;
  next(): string {
    return String((this.n += 7));
  }
}

function metadata(kind: string, namespace: string | undefined, name: string, versions: Versions, extra: JsonObject = {}): JsonObject {
  return {
    creationTimestamp: CREATED,
    name,
    ...(namespace !== undefined ? { namespace } : {}),
    resourceVersion: versions.next(),
    uid: uidOf(kind, namespace ?? '', name),
    ...extra,
  };
}

function serviceSpec(svc: GenService): JsonObject {
  if (svc.type === 'ExternalName') return { externalName: svc.externalName ?? 'example.com', sessionAffinity: 'None', type: 'ExternalName' };
  const families = familiesOf(svc).map((f) => (f === 'ipv6' ? 'IPv6' : 'IPv4'));
  const external = svc.type !== 'ClusterIP';
  return {
    ...(svc.type === 'LoadBalancer' ? { allocateLoadBalancerNodePorts: true } : {}),
    clusterIP: svc.clusterIPs[0]!,
    clusterIPs: svc.clusterIPs,
    ...(svc.externalIPs.length ? { externalIPs: svc.externalIPs } : {}),
    ...(external ? { externalTrafficPolicy: svc.externalTrafficPolicy } : {}),
    ...(svc.healthCheckNodePort !== undefined ? { healthCheckNodePort: svc.healthCheckNodePort } : {}),
    internalTrafficPolicy: svc.internalTrafficPolicy,
    ipFamilies: families,
    ipFamilyPolicy: families.length > 1 ? 'PreferDualStack' : 'SingleStack',
    ...(svc.loadBalancerSourceRanges.length ? { loadBalancerSourceRanges: svc.loadBalancerSourceRanges } : {}),
    ports: svc.ports.map((p) => ({ ...(p.name ? { name: p.name } : {}), ...(p.nodePort !== undefined ? { nodePort: p.nodePort } : {}), port: p.port, protocol: p.protocol, targetPort: p.targetPort })),
    selector: { app: svc.name },
    sessionAffinity: svc.sessionAffinityTimeout !== undefined ? 'ClientIP' : 'None',
    ...(svc.sessionAffinityTimeout !== undefined ? { sessionAffinityConfig: { clientIP: { timeoutSeconds: svc.sessionAffinityTimeout } } } : {}),
    ...(svc.trafficDistribution ? { trafficDistribution: svc.trafficDistribution } : {}),
    type: svc.type,
  };
}

export function serviceObject(svc: GenService, versions: Versions): JsonObject {
  const annotations = svc.topologyMode ? { annotations: { 'service.kubernetes.io/topology-mode': svc.topologyMode } } : {};
  const ingress = svc.loadBalancerIPs.map((ip) => ({ ip, ipMode: 'VIP' }));
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: metadata('Service', svc.namespace, svc.name, versions, { ...annotations, labels: { app: svc.name } }),
    spec: serviceSpec(svc),
    status: { loadBalancer: ingress.length ? { ingress } : {} },
  };
}

function endpointObject(svc: GenService, pod: GenPod, address: string, zoneOf: (node: string) => string | undefined): JsonObject {
  const hints: JsonObject = {};
  if (pod.hints?.forNodes?.length) hints.forNodes = pod.hints.forNodes.map((name) => ({ name }));
  if (pod.hints?.forZones?.length) hints.forZones = pod.hints.forZones.map((name) => ({ name }));
  const zone = zoneOf(pod.nodeName);
  return {
    addresses: [address],
    conditions: { ready: pod.ready, serving: pod.serving, terminating: pod.terminating },
    ...(Object.keys(hints).length ? { hints } : {}),
    nodeName: pod.nodeName,
    targetRef: { kind: 'Pod', name: pod.name, namespace: svc.namespace, uid: uidOf('Pod', svc.namespace, pod.name) },
    ...(zone !== undefined ? { zone } : {}),
  };
}

/** The Service's EndpointSlices: per family, chunks of 100 endpoints; a placeholder when it selects nothing. */
export function endpointSliceObjects(svc: GenService, nodes: GenNode[], versions: Versions): JsonObject[] {
  if (svc.type === 'ExternalName') return [];
  const families = familiesOf(svc);
  const zoneOf = (name: string) => nodes.find((n) => n.name === name)?.zone;
  const ports = svc.ports.map((p) => ({ name: p.name, port: p.targetPort, protocol: p.protocol }));
  const out: JsonObject[] = [];
  for (const family of families) {
    const endpoints = svc.pods.flatMap((pod) => {
      const address = podAddress(pod, family);
      return address === undefined ? [] : [endpointObject(svc, pod, address, zoneOf)];
    });
    const chunks: JsonObject[][] = [];
    for (let i = 0; i < endpoints.length; i += MAX_ENDPOINTS_PER_SLICE) chunks.push(endpoints.slice(i, i + MAX_ENDPOINTS_PER_SLICE));
    if (chunks.length === 0) chunks.push([]);
    chunks.forEach((chunk, i) => out.push(sliceObject(svc, family, i, chunk, chunk.length ? ports : null, versions)));
  }
  return out;
}

/** generateName's random suffix: 5 characters of the apiserver's alphabet (no vowels, no 0, 1, 3). */
function suffix(seed: string): string {
  return Array.from(sha256(seed).slice(0, 5), (b) => 'bcdfghjklmnpqrstvwxz2456789'[b % 27]).join('');
}

function sliceObject(svc: GenService, family: Family, index: number, endpoints: JsonObject[], ports: Json[] | null, versions: Versions): JsonObject {
  const name = `${svc.name.slice(0, 57)}-${suffix(`${svc.namespace}/${svc.name}/${family}/${index}`)}`;
  const labels: JsonObject = {
    app: svc.name,
    'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
    'kubernetes.io/service-name': svc.name,
    ...(svc.clusterIPs[0] === 'None' ? { 'service.kubernetes.io/headless': '' } : {}),
  };
  return {
    addressType: family === 'ipv6' ? 'IPv6' : 'IPv4',
    apiVersion: 'discovery.k8s.io/v1',
    endpoints: endpoints.length ? endpoints : null,
    kind: 'EndpointSlice',
    metadata: metadata('EndpointSlice', svc.namespace, name, versions, {
      annotations: { 'endpoints.kubernetes.io/last-change-trigger-time': CHANGED },
      generateName: `${svc.name.slice(0, 57)}-`,
      generation: 1,
      labels,
      ownerReferences: [{ apiVersion: 'v1', blockOwnerDeletion: true, controller: true, kind: 'Service', name: svc.name, uid: uidOf('Service', svc.namespace, svc.name) }],
    }),
    ports,
  };
}

export function nodeObject(node: GenNode, versions: Versions): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: metadata('Node', undefined, node.name, versions, {
      annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' },
      labels: {
        'beta.kubernetes.io/arch': 'amd64',
        'beta.kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/hostname': node.name,
        'kubernetes.io/os': 'linux',
        ...(node.zone !== undefined ? { 'topology.kubernetes.io/region': 'region-1', 'topology.kubernetes.io/zone': node.zone } : {}),
      },
    }),
    spec: { podCIDR: node.podCIDRs[0] ?? null, podCIDRs: node.podCIDRs },
    status: {
      addresses: [...node.internalIPs.map((address) => ({ address, type: 'InternalIP' })), { address: node.name, type: 'Hostname' }],
      conditions: [{ lastHeartbeatTime: CHANGED, lastTransitionTime: CREATED, message: 'kubelet is posting ready status', reason: 'KubeletReady', status: 'True', type: 'Ready' }],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        architecture: 'amd64',
        bootID: uidOf('boot', '', node.name),
        containerRuntimeVersion: 'containerd://1.7.24',
        kernelVersion: '6.8.0-49-generic',
        kubeProxyVersion: 'v1.32.0',
        kubeletVersion: 'v1.32.0',
        machineID: uidOf('machine', '', node.name).replace(/-/g, ''),
        operatingSystem: 'linux',
        osImage: 'Ubuntu 24.04.1 LTS',
        systemUUID: uidOf('system', '', node.name),
      },
    },
  };
}

/** kubeadm's kube-proxy ConfigMap: `config.conf` is a KubeProxyConfiguration (defaults as kubeadm writes them). */
export function kubeProxyConfigMap(proxy: NonNullable<GenCluster['proxy']>, versions: Versions): JsonObject {
  const conf = [
    'apiVersion: kubeproxy.config.k8s.io/v1alpha1',
    'bindAddress: 0.0.0.0',
    'bindAddressHardFail: false',
    'clientConnection:',
    '  acceptContentTypes: ""',
    '  burst: 0',
    '  contentType: ""',
    '  kubeconfig: /var/lib/kube-proxy/kubeconfig.conf',
    '  qps: 0',
    `clusterCIDR: ${proxy.clusterCIDR}`,
    'configSyncPeriod: 0s',
    'conntrack:',
    '  maxPerCore: null',
    '  min: null',
    '  tcpCloseWaitTimeout: null',
    '  tcpEstablishedTimeout: null',
    'detectLocalMode: ""',
    'enableProfiling: false',
    'healthzBindAddress: ""',
    'hostnameOverride: ""',
    'iptables:',
    '  localhostNodePorts: null',
    '  masqueradeAll: false',
    '  masqueradeBit: null',
    '  minSyncPeriod: 0s',
    '  syncPeriod: 0s',
    'ipvs:',
    '  excludeCIDRs: null',
    '  minSyncPeriod: 0s',
    '  scheduler: ""',
    '  strictARP: false',
    '  syncPeriod: 0s',
    '  tcpFinTimeout: 0s',
    '  tcpTimeout: 0s',
    '  udpTimeout: 0s',
    'kind: KubeProxyConfiguration',
    'logging:',
    '  flushFrequency: 0',
    '  options:',
    '    json:',
    '      infoBufferSize: "0"',
    '  verbosity: 0',
    'metricsBindAddress: ""',
    `mode: ${proxy.mode === '' ? '""' : proxy.mode}`,
    'nodePortAddresses: null',
    'oomScoreAdj: null',
    'portRange: ""',
    'showHiddenMetricsForVersion: ""',
    'winkernel:',
    '  enableDSR: false',
    '  forwardHealthCheckVip: false',
    '  networkName: ""',
    '  rootHnsEndpointName: ""',
    '  sourceVip: ""',
  ].join('\n');
  const kubeconfig = [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- cluster:',
    '    certificate-authority: /var/run/secrets/kubernetes.io/serviceaccount/ca.crt',
    '    server: https://192.168.0.1:6443',
    '  name: default',
    'contexts:',
    '- context:',
    '    cluster: default',
    '    namespace: default',
    '    user: default',
    '  name: default',
    'current-context: default',
    'users:',
    '- name: default',
    '  user:',
    '    tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token',
  ].join('\n');
  return {
    apiVersion: 'v1',
    data: { 'config.conf': conf, 'kubeconfig.conf': kubeconfig },
    kind: 'ConfigMap',
    metadata: metadata('ConfigMap', 'kube-system', 'kube-proxy', versions, { annotations: { 'kubeadm.kubernetes.io/component-config.hash': `sha256:${hex(sha256(conf))}` }, labels: { app: 'kube-proxy' } }),
  };
}

export interface ClusterObjects {
  services: JsonObject[];
  endpointSlices: JsonObject[];
  nodes: JsonObject[];
  configMap?: JsonObject;
}

export function clusterObjects(cluster: GenCluster): ClusterObjects {
  const versions = new Versions();
  return {
    services: cluster.services.map((s) => sortKeys(serviceObject(s, versions)) as JsonObject),
    endpointSlices: cluster.services.flatMap((s) => endpointSliceObjects(s, cluster.nodes, versions)).map((o) => sortKeys(o) as JsonObject),
    nodes: cluster.nodes.map((n) => sortKeys(nodeObject(n, versions)) as JsonObject),
    ...(cluster.proxy ? { configMap: sortKeys(kubeProxyConfigMap(cluster.proxy, versions)) as JsonObject } : {}),
  };
}

/** Keys in alphabetical order at every level (kubectl's unstructured output); arrays keep their order. */
function sortKeys(v: Json | undefined): Json | undefined {
  if (Array.isArray(v)) return v.map((x) => sortKeys(x) as Json);
  if (v === null || typeof v !== 'object') return v;
  const out: JsonObject = {};
  for (const k of Object.keys(v).sort()) if (v[k] !== undefined) out[k] = sortKeys(v[k]);
  return out;
}

export function listOf(items: JsonObject[]): JsonObject {
  return { apiVersion: 'v1', items, kind: 'List', metadata: { resourceVersion: '' } };
}

/** `-o json`: kubectl indents with four spaces and ends with a newline. */
export function kubectlJson(object: JsonObject): string {
  return `${JSON.stringify(object, null, 4)}\n`;
}

/**
 * `-o yaml`: go-yaml's layout (sequences not indented under their key, no line folding, multi-line strings
 * as `|-` blocks) and YAML 1.1 quoting, so timestamps and numeric strings stay quoted as kubectl prints them;
 * never anchors or aliases for repeated values (kubectl writes none, and leaving them out is also faster).
 */
export function kubectlYaml(object: JsonObject): string {
  return stringify(new Document(object, { version: '1.1', aliasDuplicateObjects: false }), { indentSeq: false, lineWidth: 0, blockQuote: 'literal', directives: false });
}

/** The files a user would save: one YAML with the List and the ConfigMap, or three JSON files. */
export function clusterStateFiles(cluster: GenCluster, format: 'yaml' | 'json'): Record<string, string> {
  const o = clusterObjects(cluster);
  if (format === 'yaml') {
    const docs = [kubectlYaml(listOf([...o.services, ...o.endpointSlices, ...o.nodes])), ...(o.configMap ? [kubectlYaml(o.configMap)] : [])];
    return { 'cluster-state.yaml': docs.join('---\n') };
  }
  return {
    'services.json': kubectlJson(listOf([...o.services, ...o.endpointSlices])),
    'nodes.json': kubectlJson(listOf(o.nodes)),
    ...(o.configMap ? { 'kube-proxy.json': kubectlJson(o.configMap) } : {}),
  };
}
