// What every webview panel of ours shares: the HTML shell (CSP default-src 'none', one nonce, no data but a JSON
// state in an escaped attribute) and revealing a range of a snapshot's file beside the panel.
import * as vscode from 'vscode';

function nonce(): string {
  const bytes = new Uint8Array(18);
  crypto.getRandomValues(bytes);
  return Buffer.from(bytes)
    .toString('base64')
    .replace(/[^A-Za-z0-9]/g, '');
}

const attr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export interface ShellOptions {
  webview: vscode.Webview;
  extensionUri: vscode.Uri;
  /** Bundle and stylesheet names under dist/. */
  script: string;
  style: string;
  /** Serialised into a data attribute of <body>; the script reads it with JSON.parse. */
  state: unknown;
  /** The root element the script fills. */
  root: 'main' | 'div';
  /** Whether the page may show images of our own (SVG exports). */
  images?: boolean;
  /** Other bundles under dist/ the script may load later (with the page's nonce), by name: their URIs in data-scripts. */
  later?: Record<string, string>;
}

export function webviewShell(o: ShellOptions): string {
  const n = nonce();
  const dist = vscode.Uri.joinPath(o.extensionUri, 'dist');
  const script = o.webview.asWebviewUri(vscode.Uri.joinPath(dist, o.script));
  const style = o.webview.asWebviewUri(vscode.Uri.joinPath(dist, o.style));
  const src = o.webview.cspSource;
  const csp = `default-src 'none'; style-src ${src}; ${o.images ? `img-src ${src}; ` : ''}font-src ${src}; script-src 'nonce-${n}';`;
  const later = Object.fromEntries(Object.entries(o.later ?? {}).map(([k, v]) => [k, o.webview.asWebviewUri(vscode.Uri.joinPath(dist, v)).toString()]));
  const root = o.root === 'main' ? '<main id="app" aria-busy="true"></main>' : '<div id="app"></div>';
  return `<!DOCTYPE html>
<html lang="${attr(vscode.env.language)}">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${attr(style.toString())}">
</head>
<body data-state="${attr(JSON.stringify(o.state))}" data-scripts="${attr(JSON.stringify(later))}">
${root}
<script nonce="${n}" src="${attr(script.toString())}"></script>
</body>
</html>`;
}

/** Opens `uri` beside `panel` (or where it is already visible), selects `range` and scrolls it into view. */
export async function revealBeside(panel: vscode.WebviewPanel, uri: vscode.Uri, range: vscode.Range): Promise<void> {
  const doc = await vscode.workspace.openTextDocument(uri);
  const valid = doc.validateRange(range);
  const existing = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri.toString());
  const editor = await vscode.window.showTextDocument(doc, {
    selection: new vscode.Selection(valid.start, valid.end),
    viewColumn: existing?.viewColumn ?? (panel.viewColumn === vscode.ViewColumn.One ? vscode.ViewColumn.Two : vscode.ViewColumn.One),
    preserveFocus: false,
  });
  editor.revealRange(valid, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}
