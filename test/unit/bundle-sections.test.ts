// Retina's combined metadata files (microsoft/retina pkg/capture/provider/network_capture_unix.go,
// processMetadataFile): `Summary:`, `COMMAND(description)` lines, `Execute:`, then each command and its output.
import { describe, expect, it } from 'vitest';
import { commandSections, sectionFileName } from '../../src/core/bundle/sections';

const FILE =
  'Summary:\n\n/usr/sbin/iptables-save(IPtables rules)\n/usr/sbin/iptables -vnx -L -t nat(IPtables rules and stats in nat table)\n\nExecute:\n\n/usr/sbin/iptables-save\n\n*nat\nCOMMIT\n/usr/sbin/iptables -vnx -L -t nat\n\nChain PREROUTING (policy ACCEPT 0 packets, 0 bytes)\n';

describe('commandSections', () => {
  it('splits the outputs by the commands the summary lists, with the line each starts on', () => {
    expect(commandSections(FILE)).toEqual([
      { command: '/usr/sbin/iptables-save', firstLine: 10, text: '*nat\nCOMMIT\n' },
      { command: '/usr/sbin/iptables -vnx -L -t nat', firstLine: 14, text: 'Chain PREROUTING (policy ACCEPT 0 packets, 0 bytes)\n\n' },
    ]);
  });
  it('a failed command keeps its error text as its section', () => {
    const failed = 'Summary:\n\n/usr/sbin/ipset list(ipsets)\n\nExecute:\n\n/usr/sbin/ipset list\n\nFailed to run "/usr/sbin/ipset list", error: exit status 1)';
    expect(commandSections(failed)?.[0].text).toContain('Failed to run');
  });
  it('other files are not split', () => {
    expect(commandSections('*nat\nCOMMIT\n')).toBeUndefined();
    expect(commandSections('Summary:\nno execute part\n')).toBeUndefined();
  });
  it('names a section after its file and command', () => {
    expect(sectionFileName('cap/iptables-rules.txt', 0, '/usr/sbin/iptables -vnx -L')).toBe('cap/iptables-rules.txt#1-iptables_-vnx_-L');
  });
});
