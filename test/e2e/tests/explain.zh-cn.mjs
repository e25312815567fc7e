// VS Code in Simplified Chinese (`--locale zh-cn`): "Explain This Node" (解释此节点) explains the nftables and the
// iptables-nft samples in Chinese, with the technical words and the quoted dump lines as the tools print them, and
// its evidence links still select their lines. Expected texts come from the shipped bundles.
import * as wt from '../lib/walkthrough.mjs';

const ZH = wt.nls('zh-cn');
const CATEGORY = ZH.category;
const msg = (english, ...args) => wt.message('zh-cn', english, ...args);
const NFT = wt.sampleLines('nftables', 'node1.nft');
const IPT = wt.sampleLines('iptables-nft', 'node1.iptables');

const CASES = [
  {
    label: msg('nftables mode'),
    file: 'node1.nft',
    headline: msg('This node runs kube-proxy in {0}.', msg('nftables mode')),
    section: { id: 'evidence', title: msg('How to tell') },
    quote: 'table ip kube-proxy {',
    line: NFT.indexOf('table ip kube-proxy {') + 1,
    words: ['service-ips', 'O(1)'],
  },
  {
    label: msg('iptables mode, nf_tables backend'),
    file: 'node1.iptables',
    headline: msg('This node runs kube-proxy in {0}.', msg('iptables mode')),
    section: { id: 'iptables-nft', title: msg('Why an iptables-nft header does not mean nftables mode') },
    quote: IPT[0],
    line: 1,
    words: ['KUBE-SERVICES', 'iptables-restore'],
  },
];

function webview(page, vscode) {
  return vscode.webviewWith(page, '#headline', 'the Explain This Node webview');
}

export default CASES.map((c) => ({
  name: `zh-cn: 解释此节点 explains the ${c.file} sample in Chinese and its evidence links select their lines`,
  timeout: 90_000,
  async run({ page, vscode, log }) {
    if (c.line <= 0) throw new Error(`sample: no line "${c.quote}"`);
    // A dump in the editor first: the extension is active (and its commands listed) before the palette is asked.
    await vscode.openFile(page, 'node1.txt');
    await vscode.runCommand(page, 'View: Close All Editors');
    await vscode.runCommand(page, `${CATEGORY}: ${ZH['command.openSamples']}`);
    await vscode.chooseInQuickInput(page, c.label);
    await vscode.poll(async () => (await vscode.activeTab(page))?.startsWith(c.file), { what: `${c.file} in front` });
    await vscode.runCommand(page, `${CATEGORY}: ${ZH['command.explainNode']}`);
    const view = await webview(page, vscode);
    const headline = view.locator('#headline');
    await vscode
      .poll(async () => (await headline.textContent()) === c.headline, { what: `headline "${c.headline}"`, timeout: 20_000 })
      .catch(async (e) => {
        throw new Error(`${e.message}; shown: ${await headline.textContent()}`);
      });
    const title = await view.locator(`section[data-section="${c.section.id}"] h2`).textContent();
    if (title !== c.section.title) throw new Error(`section ${c.section.id} titled "${title}", expected "${c.section.title}"`);
    const trade = await view.locator('section[data-section="tradeoffs"]').innerText();
    if (!/[\u4e00-\u9fff]/.test(trade) || !trade.includes(msg('Good:'))) throw new Error(`trade-offs not in Chinese:\n${trade}`);
    for (const w of c.words) if (!trade.includes(w)) throw new Error(`trade-offs miss "${w}":\n${trade}`);
    const link = view
      .locator('a.evidence-link')
      .filter({ has: view.locator('code.quote', { hasText: c.quote }) })
      .first();
    await link.click();
    const pos = await vscode
      .poll(
        async () => {
          const p = await vscode.cursorPosition(page);
          return (await vscode.activeTab(page))?.startsWith(c.file) && p.line === c.line && /selected/.test(p.text ?? '') ? p : undefined;
        },
        { what: `${c.file} with line ${c.line} selected` },
      )
      .catch(async (e) => {
        throw new Error(`${e.message}; status bar: ${(await vscode.cursorPosition(page)).text}`);
      });
    log(`  ${c.headline} · ${title} · ${pos.text}`);
  },
}));
