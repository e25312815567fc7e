/**
 * Appends every item of `items` to `target`, in order. `target.push(...items)` passes each item as an argument:
 * some 120,000 of them (a dump's Services, a set's elements) overflow the stack.
 */
export function appendAll<T>(target: T[], items: readonly T[]): T[] {
  for (let i = 0; i < items.length; i++) target.push(items[i]);
  return target;
}
