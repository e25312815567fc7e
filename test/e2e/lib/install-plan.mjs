// What `npm run try` / `npm run test:e2e` install on the machine, said before anything is installed: the Debian
// packages and the exact command, or (without root) the command to run by hand. Plain ESM, unit-tested.

/** Debian packages the harness needs, with what each is for. */
export const APT_PACKAGES = [
  { name: 'chromium', why: 'the browser the tests drive' },
  { name: 'libkrb5-dev', why: "to build code-server's native modules" },
  { name: 'build-essential', why: "to build code-server's native modules" },
  // Chromium draws Chinese (the zh-cn run's screenshots) with it; without a CJK font it shows boxes.
  { name: 'fonts-noto-cjk', why: 'a CJK font for the Chinese UI' },
];

/**
 * The plan for the packages `missing` (names): the lines to print, the commands to run (as root), or an error
 * (not root) that names the command to run by hand.
 */
export function systemPackagesPlan(missing, { root }) {
  const all = APT_PACKAGES.map((p) => p.name);
  if (!missing.length) return { lines: [`System packages: ${all.join(', ')} are installed; nothing to install.`], commands: [] };
  const wanted = APT_PACKAGES.filter((p) => missing.includes(p.name));
  const lines = [`System packages to install: ${wanted.map((p) => `${p.name} (${p.why})`).join(', ')}.`];
  const commands = [
    ['apt-get', ['update', '-qq']],
    ['apt-get', ['install', '-y', '-qq', ...missing]],
  ];
  const shown = commands.map(([cmd, argv]) => [cmd, ...argv].join(' ')).join(' && ');
  if (!root) {
    const sudo = commands.map(([cmd, argv]) => ['sudo', cmd, ...argv].join(' ')).join(' && ');
    return { lines, commands: [], error: `missing Debian packages (need root to install): ${missing.join(' ')}; run: ${sudo}` };
  }
  lines.push(`will run: ${shown}`);
  return { lines, commands };
}

/** Prints the plan, then installs; `installed(name)`, `print(line)` and `run(cmd, argv)` are the machine's. */
export function installSystemPackages({ installed, root, print, run }) {
  const missing = APT_PACKAGES.map((p) => p.name).filter((p) => !installed(p));
  const plan = systemPackagesPlan(missing, { root });
  for (const line of plan.lines) print(line);
  if (plan.error) throw new Error(plan.error);
  for (const [cmd, argv] of plan.commands) run(cmd, argv);
}
