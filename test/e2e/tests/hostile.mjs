// Hostile dumps in the real editor: a command link, a remote image and an autolink planted in chain policies show
// as text in the hover; only the links the extension itself writes (Trace this Service, Show in Graph) are live.
// Fixture: ../fixtures/hostile/links/hostile-links.iptables (a folder of its own: a node snapshot of one file).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');
const FILE = 'hostile-links.iptables';
const LINES = readFileSync(path.join(FIXTURES, 'hostile', 'links', FILE), 'utf8').split('\n');
const lineOf = (prefix) => LINES.findIndex((l) => l.startsWith(prefix)) + 1;

/** The anchors and images in the visible editor hover: their text and where they point. */
async function hoverLinks(page) {
  return page.evaluate(() => {
    const hovers = [...document.querySelectorAll('.monaco-hover')].filter((h) => !h.classList.contains('hidden') && h.getBoundingClientRect().height > 0);
    const links = hovers.flatMap((h) => [...h.querySelectorAll('a')]).map((a) => ({ text: a.textContent ?? '', href: a.getAttribute('href') ?? '', dataHref: a.getAttribute('data-href') ?? '' }));
    const images = hovers.flatMap((h) => [...h.querySelectorAll('img')]).map((i) => i.getAttribute('src') ?? '');
    return { links, images };
  });
}

/** Hovers the chain name of `:NAME …` until the hover shows its policy; returns the text and its links. */
async function chainHover(page, vscode, name, expect) {
  const line = lineOf(`:${name} `);
  await vscode.gotoLine(page, line);
  const text = await vscode.hoverUntil(page, LINES[line - 1], name, expect, { what: `the hover of ${name} showing ${expect}` });
  return { text, ...(await hoverLinks(page)) };
}

export default [
  {
    name: 'hostile links: a command link, an image and an autolink in a dump are inert text in the hover',
    timeout: 120_000,
    async run({ page, vscode, log }) {
      await vscode.resetUi(page);
      await vscode.openFile(page, FILE);
      await vscode.ensureLanguageMode(page, 'iptables', log);
      const live = (l) => /command:|https?:/i.test(`${l.href} ${l.dataHref}`);

      const planted = [
        ['PREROUTING', '[Show-in-Graph](command:dataplane.showGraph?'],
        ['OUTPUT', '![b](https://127.0.0.1:9/p.png)'],
        ['POSTROUTING', '<https://127.0.0.1:9/auto>'],
      ];
      for (const [chain, text] of planted) {
        const hover = await chainHover(page, vscode, chain, text);
        const links = hover.links.filter(live);
        if (links.length > 0 || hover.images.length > 0) {
          throw new Error(`the hover of ${chain} has live links ${JSON.stringify(links)} / images ${JSON.stringify(hover.images)}; text: ${hover.text.slice(0, 400)}`);
        }
        log(`  ${chain}: "${text}" shown as text, ${hover.links.length} anchors, no image`);
      }

      // The control: the extension's own links on a real Service are live, so the check above can see links.
      const svc = 'KUBE-SVC-XPGD46QRK7WJZT7O';
      const own = await chainHover(page, vscode, svc, 'Show in Graph');
      const commands = own.links.filter(live).map((l) => `${l.href} ${l.dataHref}`.match(/command:([\w.]+)/)?.[1]);
      if (!commands.includes('dataplane.showGraph') || !commands.includes('dataplane.tracePacket') || commands.some((c) => c !== 'dataplane.showGraph' && c !== 'dataplane.tracePacket')) {
        throw new Error(`the Service hover's links are ${JSON.stringify(own.links)}`);
      }
      log(`  ${svc}: the extension's own links ${JSON.stringify(commands)}`);
      await vscode.resetUi(page);
    },
  },
];
