// The editor hover's Markdown shown in the graph: a tiny renderer for what core/explain writes (paragraphs,
// `- ` lists, **bold**, `code`, [links](…)) that builds elements and text nodes only. Link targets are dropped
// (their text stays), nothing is parsed as HTML, so a dump comment can never become markup.

import { stripLinks } from './links';

function inline(parent: HTMLElement, text: string): void {
  // Links: keep the text, drop the target (command links do not run from the webview).
  const plain = stripLinks(text);
  const re = /`([^`]*)`|\*\*([^*]+)\*\*/g;
  let last = 0;
  for (let m = re.exec(plain); m; m = re.exec(plain)) {
    if (m.index > last) parent.append(document.createTextNode(unescape(plain.slice(last, m.index))));
    const el = document.createElement(m[1] !== undefined ? 'code' : 'strong');
    el.textContent = m[1] !== undefined ? m[1] : unescape(m[2]);
    parent.append(el);
    last = m.index + m[0].length;
  }
  if (last < plain.length) parent.append(document.createTextNode(unescape(plain.slice(last))));
}

/** Markdown backslash escapes (core/explain's mdEscape) back to the characters. */
function unescape(text: string): string {
  return text.replace(/\\([\\`*_{}[\]()#+\-.!<>|~"'&])/g, '$1');
}

export function renderMarkdown(markdown: string): DocumentFragment {
  const out = document.createDocumentFragment();
  let list: HTMLUListElement | undefined;
  let fence: HTMLElement | undefined;
  for (const line of markdown.split(/\r?\n/)) {
    if (line.startsWith('```')) {
      if (fence) fence = undefined;
      else {
        const pre = document.createElement('pre');
        fence = document.createElement('code');
        pre.append(fence);
        out.append(pre);
      }
      list = undefined;
      continue;
    }
    if (fence) {
      fence.append(document.createTextNode(`${fence.textContent ? '\n' : ''}${line}`));
      continue;
    }
    if (/^\s*[-*] /.test(line)) {
      if (!list) {
        list = document.createElement('ul');
        out.append(list);
      }
      const li = document.createElement('li');
      inline(li, line.replace(/^\s*[-*] /, ''));
      list.append(li);
      continue;
    }
    list = undefined;
    if (line.trim() === '' || /^-{3,}$/.test(line.trim())) continue;
    const p = document.createElement('p');
    inline(p, line.replace(/^#+\s*/, ''));
    out.append(p);
  }
  return out;
}
