// The lines an accelerator read ahead with the line before (an element list read whole): already in the model.
import type { NftTextSink } from '../text-sink';

export function tryLine(_text: string, _start: number, _end: number, sink: NftTextSink): boolean {
  return sink.line <= sink.readThrough;
}
