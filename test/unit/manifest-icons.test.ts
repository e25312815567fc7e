// Title-bar and view icons: a green ▶ (play, debug-start…) means Run/Debug in VS Code, so this extension's
// actions use neutral codicons; every icon command shows its title as the tooltip, in English and Chinese.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const manifest = JSON.parse(readFileSync('package.json', 'utf8'));
const nls: Record<string, string> = JSON.parse(readFileSync('package.nls.json', 'utf8'));
const zh: Record<string, string> = JSON.parse(readFileSync('package.nls.zh-cn.json', 'utf8'));
const CODICONS = new Set(readdirSync('node_modules/@vscode/codicons/src/icons').map((f) => f.replace(/\.svg$/, '')));
/** Codicons that read as Run or Debug. */
const RUN_OR_DEBUG = /^(play|run|debug|start|record|triangle-right)/;

interface Command {
  command: string;
  title: string;
  icon?: string | { light: string; dark: string };
}
const commands: Command[] = manifest.contributes.commands;
const byId = new Map(commands.map((c) => [c.command, c]));
const codicon = (icon: unknown) => (typeof icon === 'string' ? /^\$\(([\w-]+)\)$/.exec(icon)?.[1] : undefined);

/** Every icon the manifest shows: commands, views and view containers. */
function icons(): [string, string | undefined][] {
  const out: [string, string | undefined][] = commands.filter((c) => c.icon).map((c) => [c.command, codicon(c.icon)]);
  for (const views of Object.values(manifest.contributes.views ?? {}) as { id: string; icon?: string }[][]) for (const v of views) if (v.icon) out.push([v.id, codicon(v.icon)]);
  for (const group of Object.values(manifest.contributes.viewsContainers ?? {}) as { id: string; icon?: string }[][]) for (const v of group) if (v.icon) out.push([v.id, codicon(v.icon)]);
  return out;
}

describe('package.json icons', () => {
  it('no play or debug icon in view/title, editor/title, views or view containers', () => {
    for (const menu of ['view/title', 'editor/title']) {
      for (const item of manifest.contributes.menus[menu] ?? []) {
        const icon = codicon(byId.get(item.command)?.icon);
        expect(icon === undefined || !RUN_OR_DEBUG.test(icon), `${menu} ${item.command} $(${icon})`).toBe(true);
      }
    }
    for (const [id, icon] of icons()) expect(icon === undefined || !RUN_OR_DEBUG.test(icon), `${id} $(${icon})`).toBe(true);
  });

  it('every icon is a codicon that exists', () => {
    for (const [id, icon] of icons()) expect(icon !== undefined && CODICONS.has(icon), `${id} ${icon}`).toBe(true);
  });

  it('every command with an icon has its title (the tooltip) in English and Chinese', () => {
    const withIcon = commands.filter((c) => c.icon);
    expect(withIcon.length).toBeGreaterThan(3);
    for (const c of withIcon) {
      const key = /^%(.+)%$/.exec(c.title)?.[1];
      expect(key, c.command).toBeDefined();
      expect(nls[key!]?.trim(), `${c.command} en`).toBeTruthy();
      expect(zh[key!]?.trim(), `${c.command} zh-cn`).toBeTruthy();
      expect(zh[key!], `${c.command} zh-cn translated`).not.toBe(nls[key!]);
    }
  });

  it('every command in a title menu has an icon (a title bar of words is clipped)', () => {
    for (const menu of ['view/title', 'editor/title']) {
      for (const item of manifest.contributes.menus[menu] ?? []) if (item.group === 'navigation') expect(byId.get(item.command)?.icon, `${menu} ${item.command}`).toBeDefined();
    }
  });
});
