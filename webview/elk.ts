// dist/elk.js: ELK on its own, read by the graph webview after its first drawing (webview/elkLoader.ts).
import ELK from 'elkjs/lib/elk.bundled.js';

(globalThis as { dataplaneElk?: typeof ELK }).dataplaneElk = ELK;
