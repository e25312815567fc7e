// Lets the real iptables-restore judge a dump: `iptables-restore --test` (or ip6tables-restore) inside a throw-away
// network namespace, never the root namespace's firewall. Available only as root with the tools installed.
import { spawnSync } from 'node:child_process';

function has(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' }).status === 0;
}

/** A throw-away namespace can be made here (root is not enough in a container without CAP_SYS_ADMIN). */
function canMakeNamespace(): boolean {
  const ns = `dpx-${process.pid}-probe`;
  if (spawnSync('ip', ['netns', 'add', ns]).status !== 0) return false;
  spawnSync('ip', ['netns', 'del', ns]);
  return true;
}

/** Whether restoreCheck can run here (root, `ip` and the restore commands present, namespaces allowed). */
export const canRestoreCheck: boolean = process.getuid?.() === 0 && has('ip') && has('iptables-restore') && has('ip6tables-restore') && canMakeNamespace();

/**
 * iptables-restore's verdict on `text`: its exit status and what it printed. `ipsets` (`ipset restore` input) first
 * creates the sets the rules name: `-m set` needs them to exist.
 */
export function restoreCheck(text: string, family: 'ipv4' | 'ipv6' = 'ipv4', ipsets?: string): { status: number | null; output: string } {
  const ns = `dpx-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const add = spawnSync('ip', ['netns', 'add', ns], { encoding: 'utf8' });
  if (add.status !== 0) return { status: add.status, output: add.stderr };
  try {
    if (ipsets !== undefined) {
      const sets = spawnSync('ip', ['netns', 'exec', ns, 'ipset', 'restore'], { input: ipsets, encoding: 'utf8', timeout: 30_000 });
      if (sets.status !== 0) return { status: sets.status, output: `ipset: ${sets.stderr}` };
    }
    const command = family === 'ipv6' ? 'ip6tables-restore' : 'iptables-restore';
    const r = spawnSync('ip', ['netns', 'exec', ns, command, '--test'], { input: text, encoding: 'utf8', timeout: 30_000 });
    return { status: r.status, output: `${r.stdout}${r.stderr}` };
  } finally {
    spawnSync('ip', ['netns', 'del', ns]);
  }
}
