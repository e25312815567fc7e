// Localization hook for the pure core. The extension host installs vscode.l10n.t as the translator;
// the CLI and tests keep the default, which fills `{0}`-style placeholders into the English message.
export type MessageArg = string | number | boolean;
export type Translator = (message: string, args: MessageArg[]) => string;

export function formatMessage(message: string, args: MessageArg[]): string {
  return message.replace(/\{(\d+)\}/g, (whole, index: string) => {
    const value = args[Number(index)];
    return value === undefined ? whole : String(value);
  });
}

let translator: Translator = formatMessage;

export function setTranslator(next: Translator | undefined): void {
  translator = next ?? formatMessage;
}

/** Translates an English message (the key) and fills its `{n}` placeholders. */
export function t(message: string, ...args: MessageArg[]): string {
  return translator(message, args);
}
