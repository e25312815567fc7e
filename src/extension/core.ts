// The entry of dist/core.js: the parsers, Chevrotain, the Service catalogs, the tracer, the explanations and the
// graph code, everything the adapters ask of the pure core. Activation does not load it (docs/performance.md#budgets: evaluating
// this code is most of the bundle's cost); loadCore.ts requires it the first time an adapter needs it (the first
// dump analysed on the extension host, the first command that reads a dump). Types come from the modules
// themselves; only values that the adapters call are re-exported here.
export { setTranslator } from '../core/l10n';
export { assembleSnapshot } from '../core/collect/assemble';
export { featuresFor } from '../core/language';
export { analyzeFile, buildSnapshot, languageOfDialect } from '../core/snapshot';
export { buildSnapshotWithCluster, docsLineOf, readClusterInput } from '../core/cluster/snapshot';
export { looksLikeClusterState } from '../core/cluster/read';
export { serviceToFollow } from '../core/walkthrough';
export { formatShare } from '../core/kube/service';
export { destinationHasLeadingZero, hostPort, parseDestination, shownOutcomes } from '../core/trace';
export { endpointLine, packetLine, stepText, traceToJsonText, traceToMarkdown, traceToText } from '../core/trace/format';
export { findService, toMermaid } from '../core/graph/model';
export { toSvg } from '../core/graph/svg';
export { traceHighlight } from '../core/graph/trace';
export { runDocumentQuery, runSnapshotQuery } from './analysis/queries';
export { isBundleError, openBundleSnapshots, removeBundleSnapshots, removeStaleBundleSnapshots } from '../bundle/snapshots';
