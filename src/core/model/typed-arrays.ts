// Moved to compact/ (the one home of the compact model's helpers); kept for the modules not yet moved.
export { grown } from './compact/typed-arrays';
