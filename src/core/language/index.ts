// The registry of dump languages: language id → its features.
import { iptablesFeatures } from './iptables';
import { ipsetFeatures } from './ipset';
import { ipvsadmFeatures } from './ipvsadm';
import { nftFeatures } from './nft';
import type { DumpAnalysis, LanguageFeatures } from './types';
import { releaseLastMatch } from '../parse/detach';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyFeatures = LanguageFeatures<any>;

/**
 * The features with an `analyze` that leaves nothing of the text behind: the subject of the analysis's last
 * regular-expression match is a slice of the text, which would keep all of it alive (see parse/detach.ts).
 */
function releasingText(features: AnyFeatures): AnyFeatures {
  return {
    ...features,
    analyze: (text: string) => {
      const analysis = features.analyze(text);
      releaseLastMatch();
      return analysis;
    },
  };
}

export const LANGUAGES: readonly AnyFeatures[] = [iptablesFeatures, nftFeatures, ipvsadmFeatures, ipsetFeatures].map(releasingText);

export function featuresFor(languageId: string): AnyFeatures | undefined {
  return LANGUAGES.find((l) => l.languageId === languageId);
}

export type { DumpAnalysis };
