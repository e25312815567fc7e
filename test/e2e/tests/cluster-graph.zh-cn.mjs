// The Service graph's cluster marks in Simplified Chinese (see cluster-graph.mjs for the sample and its drifts):
// the stale pod's word and reason, and shop/checkout's "not programmed" row, from the zh-cn l10n bundle.
import { closeAll } from './graph.mjs';
import { clusterSteps } from './cluster-graph.mjs';

export default [
  {
    name: 'zh-cn: Cluster graph: the stale endpoint and the not-programmed Service are marked in Chinese',
    timeout: 180_000,
    async run({ page, vscode, log }) {
      await closeAll(page, vscode);
      try {
        await clusterSteps({ page, vscode, log }, 'zh-cn');
      } finally {
        await closeAll(page, vscode);
      }
    },
  },
];
