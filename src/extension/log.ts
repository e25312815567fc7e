import * as vscode from 'vscode';

/** The extension's log output channel ("Dataplane Explorer" in the Output view). */
export class Log {
  readonly channel: vscode.LogOutputChannel;
  constructor(context: vscode.ExtensionContext) {
    this.channel = vscode.window.createOutputChannel('Dataplane Explorer', { log: true });
    context.subscriptions.push(this.channel);
  }
  info(message: string): void {
    this.channel.info(message);
  }
  warn(message: string): void {
    this.channel.warn(message);
  }
  error(message: string): void {
    this.channel.error(message);
  }
}
