// The address library moved to model/address.ts; this name stays for modules not yet switched (the generator).
export * from '../model/address';
