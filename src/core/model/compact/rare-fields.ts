// Fields that few objects of a class have (a base chain's hook and policy, an element's timeout), kept in one
// WeakMap per class instead of a slot in every object: V8 sizes the objects of a class by its first ones, so a
// field set on the first few would cost a slot in each of 100,000 more (see docs/performance.md).

/**
 * Accessors on `prototype` for `names`: reading gives what was last set on that object (undefined before), setting
 * keeps it in a WeakMap (the object holds nothing). Declare the fields in the class with `declare`.
 */
export function defineRareFields(prototype: object, names: readonly string[]): void {
  const values = new WeakMap<object, Record<string, unknown>>();
  for (const name of names) {
    Object.defineProperty(prototype, name, {
      get(this: object): unknown {
        return values.get(this)?.[name];
      },
      set(this: object, value: unknown) {
        let fields = values.get(this);
        if (fields === undefined) values.set(this, (fields = {}));
        fields[name] = value;
      },
      configurable: true,
      enumerable: false,
    });
  }
}
