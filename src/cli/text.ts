// Text for the terminal: values from the command line or a dump are shortened and their control characters
// made visible, so that a dump cannot write escape sequences (set the title, write the clipboard, fake
// output) to the terminal of whoever reads it.

/**
 * A value from the command line or a dump for a message: control characters visible, at most `max`
 * characters (a megabyte-long argument would otherwise fill the terminal).
 */
export function clip(value: string, max = 80): string {
  const shown = value.length > max ? `${value.slice(0, max)}… (${value.length} characters)` : value;
  return visible(shown);
}

/**
 * Control characters (but tab and line feed) as \uHHHH: readable in text, and a valid escape inside the JSON
 * strings where JSON.stringify leaves C1 controls and line separators raw.
 */
export function visible(text: string): string {
  return text.replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
