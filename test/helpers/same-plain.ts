// toEqual for two models as plain data (plainModel, plainRuleset): the accelerator tests compare some 10⁵ such
// trees per file, and toEqual (custom testers, cycle stacks at every node) spent as much CPU on them as the two
// parses and the conversion together. A plain walk decides the usual "equal"; anything else goes to toEqual,
// which stays the judge and writes the diff.
import { expect } from 'vitest';

const isPlainObject = (x: object): boolean => {
  const proto = Object.getPrototypeOf(x);
  return (proto === Object.prototype || proto === null) && Object.getOwnPropertySymbols(x).length === 0;
};

/**
 * True only where toEqual is true: arrays, objects of no class (undefined values count as absent) and primitives
 * equal by Object.is. False on anything else (class instances, Maps, -0 against 0), which toEqual then judges.
 */
export function plainEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!plainEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b) || !isPlainObject(a) || !isPlainObject(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let defined = 0;
  for (const k of Object.keys(x)) {
    if (x[k] === undefined) continue;
    defined++;
    if (!plainEqual(x[k], y[k])) return false;
  }
  for (const k of Object.keys(y)) if (y[k] !== undefined) defined--;
  return defined === 0;
}

/** expect(actual).toEqual(expected), deciding the common case without toEqual. */
export function expectSamePlain(actual: unknown, expected: unknown, message?: string): void {
  if (!plainEqual(actual, expected)) expect(actual, message).toEqual(expected);
}
