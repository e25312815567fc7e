// The walkthrough's buttons open beside it, in the group already there, replacing the sample copies they opened
// before (placement.ts); its steps are ticked when the thing happened, not when a button was clicked (package.json).
import { readFileSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { columnBesideWalkthrough, staleSampleTabs } from '../../src/extension/placement';

describe('columnBesideWalkthrough', () => {
  const walkthrough = { column: 1, active: false, showsWalkthrough: true };

  it('no walkthrough shown: the caller decides', () => {
    expect(columnBesideWalkthrough([{ column: 1, active: true, showsWalkthrough: false }])).toBeUndefined();
    expect(columnBesideWalkthrough([])).toBeUndefined();
  });

  it('the walkthrough alone (a narrow window): a new group beside it, never over it', () => {
    expect(columnBesideWalkthrough([{ ...walkthrough, active: true }])).toBe('beside');
  });

  it('a group beside the walkthrough is reused, the active one first', () => {
    expect(columnBesideWalkthrough([walkthrough, { column: 2, active: true, showsWalkthrough: false }])).toBe(2);
    expect(
      columnBesideWalkthrough([
        { ...walkthrough, active: true },
        { column: 2, active: false, showsWalkthrough: false },
      ]),
    ).toBe(2);
    const three = [
      { column: 1, active: false, showsWalkthrough: false },
      { ...walkthrough, column: 2, active: true },
      { column: 3, active: false, showsWalkthrough: false },
    ];
    expect(columnBesideWalkthrough(three)).toBe(3);
    expect(columnBesideWalkthrough(three.map((g) => ({ ...g, active: g.column === 1 })))).toBe(1);
  });
});

describe('staleSampleTabs', () => {
  const roots = ['/tmp/dataplane-samples-x', '/ws/dataplane-samples'];
  const tab = (path: string | undefined, dirty = false) => ({ path, dirty });

  it('closes the earlier sample copies the new sample does not include', () => {
    const tabs = [tab('/tmp/dataplane-samples-x/iptables-nft/node1.iptables'), tab('/tmp/dataplane-samples-x/nftables/node1.nft'), tab('/ws/dataplane-samples/ipvs/node1.ipset')];
    expect(staleSampleTabs(tabs, roots, ['/tmp/dataplane-samples-x/nftables/node1.nft'])).toEqual([0, 2]);
  });

  it("keeps the user's own files, modified copies and tabs of no file", () => {
    const tabs = [tab('/ws/node1.iptables'), tab('/tmp/dataplane-samples-x/ipvs/node1.ipset', true), tab(undefined), tab('/tmp/dataplane-samples-xy/a.nft')];
    expect(staleSampleTabs(tabs, roots, [])).toEqual([]);
  });
});

describe('package.json: walkthrough steps are ticked by what happened', () => {
  const pkg = JSON.parse(readFileSync(resolve(__dirname, '../../package.json'), 'utf8'));
  const steps: { id: string; completionEvents?: string[] }[] = pkg.contributes.walkthroughs[0].steps;
  const events = Object.fromEntries(steps.map((s) => [s.id, s.completionEvents ?? []]));
  const dir = resolve(__dirname, '../../src/extension');
  const source = (readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.ts'))
    .map((f) => readFileSync(resolve(dir, f), 'utf8'))
    .join('\n');

  it.each([
    ['trace', 'dataplane.traceClusterIP'],
    ['graph', 'dataplane.showGraph'],
    ['backend', 'dataplane.explainNode'],
  ])('step %s is not ticked by a click on its button (%s asks first, or may find nothing)', (id, command) => {
    expect(events[id]).not.toContain(`onCommand:${command}`);
    expect(events[id].length).toBeGreaterThan(0);
  });

  it('every onContext key of a step is one the extension sets to true', () => {
    const keys = Object.values(events)
      .flat()
      .filter((e) => e.startsWith('onContext:'))
      .map((e) => e.slice('onContext:'.length));
    expect(keys).toEqual(expect.arrayContaining(['dataplane.hasTrace']));
    for (const key of keys) expect(source).toContain(`'setContext', '${key}', true`);
  });
});
