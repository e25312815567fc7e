// Moved to compact/ (one packing scheme for ranges and columns); kept for the modules not yet moved.
export { COLUMNS, columnsRange, endColumn, fitsColumns, packColumns, startColumn } from './compact/columns';
export { copyRange, rangeIs, readRange, storeRange, storeRangeOn } from './compact/ranges';
export { chainDefinition, DeclarationRanges, StoredDefinition } from './compact/declarations';
