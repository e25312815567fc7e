// What the ipvsadm accelerators share: a line cut into words in place, digits and endpoints read without slicing.
import type { IpvsFamily } from '../../../model/ipvs';
import { ipv4Value, isIpv6 } from '../../../model/address';
import { digitsValue } from '../../digits';
import type { AddressCache } from '../keys';

/** Token columns of the line the fast path is reading: [start, end) of token k at 2k, 2k+1. */
export const cols = new Int32Array(2 * 16);

/**
 * Splits the line at [start, end) of `text` into words separated by spaces (their columns in `cols`, relative to
 * the line); -1 when it has another character than a space or printable ASCII (tabs, `#`, quotes and the rest are
 * the Chevrotain path's), or more than 16 words.
 */
export function scanWords(text: string, start: number, end: number): number {
  let n = 0;
  let inWord = false;
  for (let k = start; k < end; k++) {
    const c = text.charCodeAt(k);
    if (c === 32) {
      if (inWord) {
        cols[2 * n - 1] = k - start;
        inWord = false;
      }
    } else if (c > 32 && c < 127 && c !== 35 /* # */) {
      if (!inWord) {
        if (n === 16) return -1;
        cols[2 * n] = k - start;
        n++;
        inWord = true;
      }
    } else {
      return -1;
    }
  }
  if (inWord) cols[2 * n - 1] = end - start;
  return n;
}

export function isDigits(text: string, start: number, end: number, max: number): boolean {
  if (end <= start || end - start > max) return false;
  for (let k = start; k < end; k++) {
    const c = text.charCodeAt(k);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** The family of `10.0.0.1:80` or `[fd00::1]:80` at [start, end) with a valid address and port, the way ipvsadm -Ln prints them; else undefined. */
export function endpointFamily(text: string, start: number, end: number): IpvsFamily | undefined {
  let portStart: number;
  let family: IpvsFamily;
  if (text.charCodeAt(start) === 91 /* [ */) {
    const close = text.indexOf(']', start);
    if (close < 0 || close + 1 >= end || text.charCodeAt(close + 1) !== 58) return undefined;
    if (!isIpv6(text.slice(start + 1, close))) return undefined;
    family = 'ipv6';
    portStart = close + 2;
  } else {
    const colon = text.indexOf(':', start);
    if (colon < 0 || colon >= end) return undefined;
    if (Number.isNaN(ipv4Value(text, start, colon))) return undefined;
    family = 'ipv4';
    portStart = colon + 1;
  }
  return isDigits(text, portStart, end, 5) && digitsValue(text, portStart, end) <= 65535 ? family : undefined;
}

/** The address, family and port of an endpoint endpointFamily accepts; undefined for another. */
export function fastEndpoint(text: string, start: number, end: number, ipv4: AddressCache): { address: string; family: IpvsFamily; port: number } | undefined {
  const family = endpointFamily(text, start, end);
  if (family === undefined) return undefined;
  let address: string;
  let portStart: number;
  if (family === 'ipv6') {
    const close = text.indexOf(']', start);
    address = text.slice(start + 1, close);
    portStart = close + 2;
  } else {
    const colon = text.indexOf(':', start);
    address = ipv4.address(ipv4Value(text, start, colon), text, start, colon);
    portStart = colon + 1;
  }
  return { address, family, port: digitsValue(text, portStart, end) };
}
