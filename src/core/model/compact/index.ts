// The compact model: how parsers keep what they read small (see docs/performance.md). One packing scheme for two
// columns in a number (columns.ts), ranges kept as numbers (ranges.ts, declarations.ts), references as columns
// (references.ts), fields few objects have kept aside (rare-fields.ts), and growing typed arrays (typed-arrays.ts).
export * from './columns';
export * from './ranges';
export * from './declarations';
export * from './references';
export * from './rare-fields';
export * from './typed-arrays';
export * from './rule-facts';
