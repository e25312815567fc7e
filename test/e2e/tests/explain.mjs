// "Explain This Node": for the sample of each mode, run the command from the palette, read the mode and the
// evidence in the webview, click an evidence link and check that the editor selects exactly that line (in the
// right file: the IPVS sample's link goes to the ipset dump). Then the walkthrough's button.
import * as wt from '../lib/walkthrough.mjs';

/** The explain webview's document: the inner frame of the webview that shows a headline (the walkthrough's media is a webview too). */
function webview(page, vscode) {
  return vscode.webviewWith(page, '#headline', 'the Explain This Node webview');
}

function lineOf(lines, pred, after = 0) {
  const i = lines.findIndex((l, k) => k >= after && pred(l));
  if (i < 0) throw new Error('sample: expected line not found');
  return i + 1;
}

const IPT_NFT = wt.sampleLines('iptables-nft', 'node1.iptables');
const IPT_LEGACY = wt.sampleLines('iptables-legacy', 'node1.iptables');
const NFT = wt.sampleLines('nftables', 'node1.nft');
const IPSET = wt.sampleLines('ipvs', 'node1.ipset');

const MODES = [
  {
    label: 'iptables mode, nf_tables backend',
    file: 'node1.iptables',
    headline: 'This node runs kube-proxy in iptables mode.',
    sections: ['verdict', 'evidence', 'backend', 'cluster', 'iptables-nft', 'tradeoffs', 'status', 'numbers'],
    // kube-proxy's KUBE-SERVICES of the nat table (the filter table has one too).
    click: { section: 'evidence', quote: ':KUBE-SERVICES - [0:0]', length: ':KUBE-SERVICES - [0:0]'.length, file: 'node1.iptables', line: lineOf(IPT_NFT, (l) => l === ':KUBE-SERVICES - [0:0]', IPT_NFT.indexOf('*nat')) },
  },
  {
    label: 'iptables mode, legacy backend',
    file: 'node1.iptables',
    headline: 'This node runs kube-proxy in iptables mode.',
    sections: ['verdict', 'evidence', 'backend', 'cluster', 'tradeoffs', 'status', 'numbers'],
    click: { section: 'backend', quote: IPT_LEGACY[0], length: IPT_LEGACY[0].length, file: 'node1.iptables', line: 1 },
  },
  {
    label: 'nftables mode',
    file: 'node1.nft',
    headline: 'This node runs kube-proxy in nftables mode.',
    sections: ['verdict', 'evidence', 'cluster', 'tradeoffs', 'status', 'numbers'],
    click: {
      section: 'evidence',
      quote: 'ip daddr . meta l4proto . th dport vmap @service-ips',
      length: NFT.find((l) => l.trim() === 'ip daddr . meta l4proto . th dport vmap @service-ips')?.length,
      file: 'node1.nft',
      line: lineOf(NFT, (l) => l.trim() === 'ip daddr . meta l4proto . th dport vmap @service-ips'),
    },
  },
  {
    label: 'IPVS mode',
    file: 'node1.ipvsadm',
    headline: 'This node runs kube-proxy in IPVS mode.',
    sections: ['verdict', 'evidence', 'backend', 'cluster', 'iptables-nft', 'tradeoffs', 'status', 'numbers'],
    click: {
      section: 'evidence',
      quote: IPSET.find((l) => l.startsWith('create KUBE-CLUSTER-IP ')),
      length: IPSET.find((l) => l.startsWith('create KUBE-CLUSTER-IP '))?.length,
      file: 'node1.ipset',
      line: lineOf(IPSET, (l) => l.startsWith('create KUBE-CLUSTER-IP ')),
    },
  },
];

async function openSample(page, vscode, label, file) {
  await vscode.runCommand(page, 'Dataplane Explorer: Open Sample Dumps');
  await vscode.poll(async () => (await vscode.quickInputRows(page)).some((r) => r.includes(label)), { what: 'the mode picker' });
  await vscode.chooseInQuickInput(page, label);
  await vscode.poll(async () => (await vscode.activeTab(page))?.startsWith(file), { what: `${file} in front` });
}

/** Waits for the explanation, checks headline and sections, clicks one evidence link, checks the selection. */
async function checkExplanation(page, vscode, log, m) {
  const view = await webview(page, vscode);
  const headline = view.locator('#headline');
  await headline.waitFor({ state: 'visible', timeout: 30_000 });
  await vscode
    .poll(async () => (await headline.textContent()) === m.headline, { what: `headline "${m.headline}"`, timeout: 20_000 })
    .catch(async (e) => {
      throw new Error(`${e.message}; shown: ${await headline.textContent()}`);
    });
  const sections = await view.locator('section[data-section]').evaluateAll((els) => els.map((e) => e.getAttribute('data-section')));
  if (JSON.stringify(sections) !== JSON.stringify(m.sections)) throw new Error(`sections ${JSON.stringify(sections)}, expected ${JSON.stringify(m.sections)}`);
  const numbers = await view.locator('section[data-section="numbers"] table.facts').innerText();
  if (!/Service ports\s+6\b/.test(numbers) || !/Service ports without endpoints\s+1\b/.test(numbers)) throw new Error(`numbers: ${numbers}`);
  const link = view
    .locator(`section[data-section="${m.click.section}"] a.evidence-link`)
    .filter({ has: view.locator('code.quote', { hasText: m.click.quote }) })
    .first();
  await link.waitFor({ state: 'visible' });
  const location = await link.locator('.location').textContent();
  if (location !== `${m.click.file}:${m.click.line}`) throw new Error(`evidence "${m.click.quote}" says ${location}, expected ${m.click.file}:${m.click.line}`);
  await link.click();
  const pos = await vscode
    .poll(
      async () => {
        const tab = await vscode.activeTab(page);
        const p = await vscode.cursorPosition(page);
        // The whole line is selected; the cursor ends at its end.
        return tab?.startsWith(m.click.file) && p.line === m.click.line && /selected/.test(p.text ?? '') ? p : undefined;
      },
      { what: `${m.click.file} with line ${m.click.line} selected` },
    )
    .catch(async (e) => {
      throw new Error(`${e.message}; tab ${await vscode.activeTab(page)}, status bar: ${(await vscode.cursorPosition(page)).text}`);
    });
  // The whole line, indentation included (nft indents with tabs), and nothing more.
  const selected = Number(/\((\d+) selected\)/.exec(pos.text)?.[1]);
  if (selected !== m.click.length) throw new Error(`${selected} characters selected, expected the whole line (${m.click.length}): ${pos.text}`);
  log(`  ${m.label}: ${sections.length} sections; "${m.click.quote.slice(0, 40)}" → ${pos.text}`);
}

export default [
  ...MODES.map((m) => ({
    name: `Explain This Node: ${m.label} sample, mode and evidence; a link selects its line`,
    timeout: 90_000,
    async run({ page, vscode, log }) {
      await vscode.runCommand(page, 'View: Close All Editors');
      await openSample(page, vscode, m.label, m.file);
      await vscode.runCommand(page, 'Dataplane Explorer: Explain This Node');
      await checkExplanation(page, vscode, log, m);
    },
  })),
  {
    name: 'Explain This Node: the walkthrough\'s "iptables-nft is not nftables mode" button explains the nf_tables sample',
    timeout: 90_000,
    async run({ page, vscode, log }) {
      const title = wt.walkthroughTitle('en');
      const step = wt.walkthroughSteps('en').find((s) => s.id === 'backend');
      const button = step?.links.find((l) => l.command.startsWith('command:dataplane.explainNode'));
      if (!button) throw new Error(`the backend step has no Explain button: ${JSON.stringify(step?.links)}`);
      await vscode.runCommand(page, 'View: Close All Editors');
      await wt.openWalkthrough(page, title);
      await wt.clickStepLink(page, title, step.title, button.label);
      await checkExplanation(page, vscode, log, MODES[0]);
    },
  },
];
