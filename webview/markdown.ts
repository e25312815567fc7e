// The editor hover's Markdown shown in the graph: a tiny renderer for what core/explain writes (paragraphs,
// `- ` lists, **bold**, `code`, [links](…)) that builds elements and text nodes only. Link targets are dropped
// (their text stays), nothing is parsed as HTML, so a dump comment can never become markup.

import { stripLinks } from './links';

function inline(parent: HTMLElement, text: string): void {
  // Links: keep the text, drop the target (command links do not run from the webview).
  const plain = stripLinks(text);
  // A backslash escape, a code span (any fence length, as core/explain/markdown writes them) or bold.
  const re = /\\([!-/:-@[-`{-~])|(`+)([\s\S]*?[^`])\2(?!`)|\*\*((?:\\.|[^*\\])+)\*\*/g;
  let last = 0;
  let pending = '';
  const flush = (upTo: number) => {
    pending += plain.slice(last, upTo);
    if (pending) parent.append(document.createTextNode(pending));
    pending = '';
  };
  for (let m = re.exec(plain); m; m = re.exec(plain)) {
    if (m[1] !== undefined) {
      pending += plain.slice(last, m.index) + m[1];
      last = m.index + m[0].length;
      continue;
    }
    flush(m.index);
    const el = document.createElement(m[2] !== undefined ? 'code' : 'strong');
    el.textContent = m[2] !== undefined ? m[3].replace(/^ (.*) $/, '$1') : unescape(m[4]);
    parent.append(el);
    last = m.index + m[0].length;
  }
  flush(plain.length);
}

/** Markdown backslash escapes (core/explain/markdown's text) back to the characters. */
function unescape(text: string): string {
  return text.replace(/\\([!-/:-@[-`{-~])/g, '$1');
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
