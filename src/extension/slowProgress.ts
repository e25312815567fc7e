// Progress for a question that may take a while on a large dump (the first trace, the graph, while the analysis worker
// still prepares them after a parse): shown only when the answer is late, so that quick answers stay quiet.
import * as vscode from 'vscode';

/** How long an answer may take before a progress notification says what is going on (ms). */
export const SLOW_ANSWER_MS = 400;

/** `work()`, with a progress notification titled `title` from SLOW_ANSWER_MS on until it settles. */
export function withSlowProgress<T>(title: string, work: () => Promise<T>, delay = SLOW_ANSWER_MS): Promise<T> {
  const answer = work();
  let settled = false;
  const timer = setTimeout(() => {
    if (settled) return;
    void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title }, () => answer.catch(() => undefined));
  }, delay);
  const done = () => {
    settled = true;
    clearTimeout(timer);
  };
  answer.then(done, done);
  return answer;
}
