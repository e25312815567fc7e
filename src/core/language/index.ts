// The registry of dump languages: language id → its features.
import { iptablesFeatures } from './iptables';
import { ipsetFeatures } from './ipset';
import { ipvsadmFeatures } from './ipvsadm';
import { nftFeatures } from './nft';
import type { DumpAnalysis, LanguageFeatures } from './types';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyFeatures = LanguageFeatures<any>;

export const LANGUAGES: readonly AnyFeatures[] = [iptablesFeatures, nftFeatures, ipvsadmFeatures, ipsetFeatures];

export function featuresFor(languageId: string): AnyFeatures | undefined {
  return LANGUAGES.find((l) => l.languageId === languageId);
}

export type { DumpAnalysis };
