import type { Plugin } from 'esbuild';
export declare const coreOnDemand: Plugin;
