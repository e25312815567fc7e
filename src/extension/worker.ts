// The analysis worker (dist/worker.js): parses large dumps off the extension host's thread and answers the
// editor's questions about them by message (see analysis/protocol.ts). Core messages are translated with the
// extension's l10n bundle, which the extension host passes in workerData.
import { parentPort, workerData } from 'node:worker_threads';
import { formatMessage, setTranslator } from '../core/l10n';
import { AnalysisHost } from './analysis/host';
import type { ToWorker, WorkerData } from './analysis/protocol';

const data = (workerData ?? {}) as WorkerData;
const bundle = data.l10n;
if (bundle) setTranslator((message, args) => formatMessage(Object.hasOwn(bundle, message) ? bundle[message] : message, args));

if (parentPort) {
  const port = parentPort;
  const host = new AnalysisHost((message) => port.postMessage(message));
  port.on('message', (message: ToWorker) => host.receive(message));
}
