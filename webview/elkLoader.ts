// Loads dist/elk.js, whose address the extension put in data-scripts, as a script element with the page's nonce
// (the CSP allows nothing else). ELK is most of the graph's script: read after the first drawing, the panel draws
// the first Service without waiting for it (with the core's layered layout, then again with ELK).
import type ELK from 'elkjs/lib/elk.bundled.js';

// Read while our bundle runs: afterwards document.currentScript is null.
const nonce = (document.currentScript as HTMLScriptElement | null)?.nonce ?? '';
let loading: Promise<typeof ELK | undefined> | undefined;

function elkAddress(): string | undefined {
  try {
    const scripts = JSON.parse(document.body.dataset.scripts ?? '{}') as Record<string, unknown>;
    return typeof scripts.elk === 'string' ? scripts.elk : undefined;
  } catch {
    return undefined;
  }
}

/** ELK's constructor once dist/elk.js ran; undefined when it could not be loaded (the layered layout then stays). */
export function loadElk(): Promise<typeof ELK | undefined> {
  loading ??= new Promise((resolve) => {
    const loaded = () => (globalThis as { dataplaneElk?: typeof ELK }).dataplaneElk;
    const src = elkAddress();
    if (loaded() || !src) return resolve(loaded());
    const script = document.createElement('script');
    script.nonce = nonce;
    script.src = src;
    script.addEventListener('load', () => resolve(loaded()));
    script.addEventListener('error', () => resolve(undefined));
    document.body.append(script);
  });
  return loading;
}
