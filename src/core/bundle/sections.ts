// Collectors that write several commands' outputs into one file. Retina's capture metadata
// (`iptables-rules.txt`) starts with `Summary:`, one `COMMAND(description)` line per command, then `Execute:`,
// and each command line again followed by a blank line and its output.

export interface CommandSection {
  /** The command as the file names it (`/usr/sbin/iptables-save`). */
  command: string;
  /** 1-based line of the file where the section's output starts. */
  firstLine: number;
  text: string;
}

/** The file's sections, or undefined when it is not in this layout. */
export function commandSections(text: string): CommandSection[] | undefined {
  const lines = text.split(/\r?\n/);
  if (lines[0]?.trim() !== 'Summary:') return undefined;
  const execute = lines.indexOf('Execute:');
  if (execute < 0) return undefined;
  const commands = new Set(
    lines
      .slice(1, execute)
      .map((l) => /^(.+?)\([^()]*\)$/.exec(l.trim())?.[1]?.trim())
      .filter((c): c is string => !!c),
  );
  if (commands.size === 0) return undefined;
  const sections: CommandSection[] = [];
  let current: { command: string; start: number } | undefined;
  const close = (end: number) => {
    if (current) sections.push({ command: current.command, firstLine: current.start + 1, text: lines.slice(current.start, end).join('\n') + '\n' });
  };
  for (let i = execute + 1; i < lines.length; i++) {
    if (!commands.has(lines[i].trim())) continue;
    close(i);
    current = { command: lines[i].trim(), start: lines[i + 1]?.trim() === '' ? i + 2 : i + 1 };
  }
  close(lines.length);
  return sections;
}

/** A file name for a section: the file's name, then the command's words. */
export function sectionFileName(file: string, index: number, command: string): string {
  const words = command
    .replace(/^\S*\//, '')
    .replace(/[^\w.-]+/g, '_')
    .slice(0, 60);
  return `${file}#${index + 1}-${words}`;
}
