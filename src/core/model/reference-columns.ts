// Moved to compact/ (one packing scheme for ranges and columns); kept for the modules not yet moved.
export { ReferenceColumns } from './compact/references';
