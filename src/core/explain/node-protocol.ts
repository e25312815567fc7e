// Messages between the extension and the "Explain This Node" webview (DESIGN §7): typed both ways and checked
// on receipt. Dump text (quotes) only travels as string fields; the webview renders it with textContent.
// No runtime import from the rest of the core: the webview bundle includes this file.
import type { IptablesBackendSummary, ItemKind, NodeExplanation, NodeMode, SectionId } from './node-types';

/** Every fixed string the webview shows, translated by the extension. */
export interface ExplainStrings {
  refresh: string;
  files: string;
  /** Tooltip of an evidence link: `{0}` file, `{1}` line. */
  reveal: string;
  pro: string;
  con: string;
  warning: string;
}

export interface ViewEvidence {
  id: number;
  file: string;
  /** 1-based first line. */
  line: number;
  quote: string;
}

export interface ViewItem {
  kind: ItemKind;
  text: string;
  evidence: ViewEvidence[];
}

export interface ViewSection {
  id: SectionId;
  title: string;
  items: ViewItem[];
  facts: { label: string; value: string }[];
}

export interface ExplainView {
  mode: NodeMode;
  backend?: IptablesBackendSummary;
  headline: string;
  files: string[];
  sections: ViewSection[];
}

export type ToWebview = { type: 'explain'; title: string; strings: ExplainStrings; view: ExplainView } | { type: 'error'; message: string };

export type FromWebview = { type: 'ready' } | { type: 'refresh' } | { type: 'reveal'; evidence: number };

/** What the webview persists and the serializer receives after a reload. */
export interface ExplainPanelState {
  document: string;
}

/** The view of an explanation: ranges stay in the extension, the webview only names evidence by id. */
export function toView(e: NodeExplanation): ExplainView {
  return {
    mode: e.mode,
    ...(e.backend ? { backend: e.backend } : {}),
    headline: e.headline,
    files: e.files.map((f) => f.name),
    sections: e.sections.map((s) => ({
      id: s.id,
      title: s.title,
      items: s.items.map((i) => ({ kind: i.kind, text: i.text, evidence: i.evidence.map((ev) => ({ id: ev.id, file: ev.file, line: ev.range.start.line + 1, quote: ev.quote })) })),
      facts: s.facts.map((f) => ({ label: f.label, value: f.value })),
    })),
  };
}

const MODES: readonly NodeMode[] = ['iptables', 'ipvs', 'nftables', 'mixed', 'kubelet-only', 'none'];
const BACKENDS: readonly IptablesBackendSummary[] = ['nf_tables', 'legacy', 'mixed', 'unknown'];
const KINDS: readonly ItemKind[] = ['claim', 'pro', 'con', 'note', 'warning'];
const SECTIONS: readonly SectionId[] = ['verdict', 'evidence', 'backend', 'leftovers', 'cluster', 'iptables-nft', 'tradeoffs', 'status', 'numbers'];
const STRING_KEYS: readonly (keyof ExplainStrings)[] = ['refresh', 'files', 'reveal', 'pro', 'con', 'warning'];
const MAX_ITEMS = 1_000;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isString = (v: unknown, max = 20_000): v is string => typeof v === 'string' && v.length <= max;
const isIndex = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < 1e9;
const isArray = (v: unknown, max = MAX_ITEMS): v is unknown[] => Array.isArray(v) && v.length <= max;
const oneOf = <T extends string>(v: unknown, list: readonly T[]): v is T => typeof v === 'string' && (list as readonly string[]).includes(v);

function isEvidence(v: unknown): v is ViewEvidence {
  return isObject(v) && isIndex(v.id) && isString(v.file, 4_096) && isIndex(v.line) && isString(v.quote);
}

function isItem(v: unknown): v is ViewItem {
  return isObject(v) && oneOf(v.kind, KINDS) && isString(v.text) && isArray(v.evidence) && v.evidence.every(isEvidence);
}

function isSection(v: unknown): v is ViewSection {
  return (
    isObject(v) &&
    oneOf(v.id, SECTIONS) &&
    isString(v.title, 1_000) &&
    isArray(v.items) &&
    v.items.every(isItem) &&
    isArray(v.facts) &&
    v.facts.every((f) => isObject(f) && isString(f.label, 1_000) && isString(f.value, 1_000))
  );
}

function isView(v: unknown): v is ExplainView {
  return (
    isObject(v) &&
    oneOf(v.mode, MODES) &&
    (v.backend === undefined || oneOf(v.backend, BACKENDS)) &&
    isString(v.headline, 2_000) &&
    isArray(v.files, 64) &&
    v.files.every((f) => isString(f, 4_096)) &&
    isArray(v.sections, 32) &&
    v.sections.every(isSection)
  );
}

function isStrings(v: unknown): v is ExplainStrings {
  return isObject(v) && STRING_KEYS.every((k) => isString(v[k], 1_000));
}

/** Checks a message the extension sent (the webview trusts nothing it did not check). */
export function parseToWebview(v: unknown): ToWebview | undefined {
  if (!isObject(v)) return undefined;
  if (v.type === 'explain' && isString(v.title, 2_000) && isStrings(v.strings) && isView(v.view)) return { type: 'explain', title: v.title, strings: v.strings, view: v.view };
  if (v.type === 'error' && isString(v.message, 10_000)) return { type: 'error', message: v.message };
  return undefined;
}

/** Checks a message from the webview: only an evidence id, looked up by the extension, never a range or path. */
export function parseFromWebview(v: unknown): FromWebview | undefined {
  if (!isObject(v)) return undefined;
  if (v.type === 'ready' || v.type === 'refresh') return { type: v.type };
  if (v.type === 'reveal' && isIndex(v.evidence)) return { type: 'reveal', evidence: v.evidence };
  return undefined;
}

export function parseExplainPanelState(v: unknown): ExplainPanelState | undefined {
  return isObject(v) && isString(v.document, 10_000) ? { document: v.document } : undefined;
}

/** Splits text at backquotes: odd parts are code. */
export function codeSpans(text: string): { code: boolean; text: string }[] {
  const parts = text.split('`');
  // An unmatched backquote stays text.
  if (parts.length % 2 === 0) return [{ code: false, text }];
  return parts.map((p, i) => ({ code: i % 2 === 1, text: p })).filter((p) => p.text !== '');
}
