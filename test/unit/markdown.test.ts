import { describe, expect, it } from 'vitest';
import { bold, code, join, MarkdownBuilder, md, mdT, text } from '../../src/core/explain/markdown';

describe('Markdown builder', () => {
  it('escapes what could open a link, image, HTML, emphasis or autolink, and keeps names readable', () => {
    expect(text('shop/web:http 10.0.0.0/8 33.3% KUBE-SVC-X')).toBe('shop/web:http 10.0.0.0/8 33.3% KUBE-SVC-X');
    expect(text('[x](command:dataplane.showGraph?%5B%5D)')).toBe('\\[x\\](command:dataplane.showGraph?%5B%5D)');
    expect(text('![b](https://host/p.png)')).toBe('\\!\\[b\\](https\\://host/p.png)');
    expect(text('<img src=x onerror=alert(1)>')).toBe('\\<img src=x onerror=alert(1)\\>');
    expect(text('see https://x.org, WWW.y.org, a@b.c')).toBe('see https\\://x.org, WWW\\.y.org, a\\@b.c');
    expect(text('*a* _b_ ~c~ `d` |e| \\f &amp;')).toBe('\\*a\\* \\_b\\_ \\~c\\~ \\`d\\` \\|e\\| \\\\f \\&amp;');
    expect(text('# h')).toBe('\\# h');
    expect(text('12. x')).toBe('12\\. x');
    expect(text('10.244.2.9:8080 - x')).toBe('10.244.2.9:8080 - x');
    expect(text('- x')).toBe('\\- x');
    expect(text('a\nb\r\nc')).toBe('a b c');
  });

  it('makes code spans that their text cannot close, without backslash escapes inside', () => {
    expect(code('--probability 0.50000000000')).toBe('`--probability 0.50000000000`');
    expect(code('a`b')).toBe('``a`b``');
    expect(code('`a``')).toBe('``` `a`` ```');
    expect(code('x\ny')).toBe('`x y`');
    expect(code('')).toBe('');
  });

  it('takes dump text only through text and code; links only to the commands the code names', () => {
    const out = new MarkdownBuilder();
    out.push(md`${bold(text('a*'))} — ${mdT('{0} rules', 3)}`, md``);
    out.push(out.commandLink(mdT('Show in Graph'), 'dataplane.showGraph', [null, { title: 'x) [y](command:evil "t"' }], 'Draw "it"'));
    expect(out.commands).toEqual(['dataplane.showGraph']);
    const link = /\]\((command:dataplane\.showGraph\?[^ ]*) "Draw \\"it\\""\)$/.exec(out.markdown());
    expect(link?.[1]).toMatch(/^command:dataplane\.showGraph\?[A-Za-z0-9%._~-]+$/);
    expect(join([md`a`, md`b`], ' · ')).toBe('a · b');
  });
});
