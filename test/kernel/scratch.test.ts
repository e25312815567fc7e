import { it } from 'vitest';
import { generateIptablesDump } from '../../src/core/kube/generate/iptables';
import { probeEnvironment, installExitCleanup } from './lib/netns';
import { Topology, CLUSTER_CIDR } from './lib/topology';
import { handScenario, outsidePorts } from './lib/scenarios';

it('timing', async () => {
  const env = probeEnvironment();
  installExitCleanup();
  const sc = handScenario();
  for (const backend of env.backends) {
    const dump = generateIptablesDump({ services: sc.services, style: backend.style, nodeRules: true, clusterCIDR: CLUSTER_CIDR });
    let t0 = Date.now();
    const topo = await Topology.create({ id: 'tm' + backend.name[0], backend, dump, pods: sc.pods, outside: outsidePorts(sc.services), extraClientAddresses: sc.extraClientAddresses, nfacct: env.nfacct });
    console.log(backend.name, 'create ms', Date.now() - t0, (topo as any).timing);
    t0 = Date.now();
    await topo.destroy();
    console.log(backend.name, 'destroy ms', Date.now() - t0);
  }
});
