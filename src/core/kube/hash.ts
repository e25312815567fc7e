// kube-proxy's chain-name hashing (pkg/proxy/iptables/proxier.go):
//   portProtoHash(servicePortName, protocol) = base32.StdEncoding(sha256(servicePortName + protocol))[:16]
//   KUBE-SVC-/KUBE-SVL-/KUBE-EXT-/KUBE-FW- + portProtoHash(...)
//   KUBE-SEP- + base32.StdEncoding(sha256(servicePortName + protocol + endpoint))[:16]
// servicePortName is "namespace/name" or "namespace/name:portName"; protocol is lower case ("tcp");
// endpoint is "ip:port" ("[ipv6]:port").
import * as crypto from 'node:crypto';
import { formatHostPort } from '../model/address';

const BASE32_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** Character `i` of RFC 4648 base32 ("StdEncoding") of `bytes` (bits 5i to 5i + 4), as a character code. */
function base32Code(bytes: Uint8Array, i: number): number {
  const bit = 5 * i;
  const word = (bytes[bit >> 3]! << 8) | (bytes[(bit >> 3) + 1] ?? 0);
  return BASE32_ALPHABET.charCodeAt((word >>> (11 - (bit & 7))) & 31);
}

/** The first `count` characters of base32(bytes): 8 of 5 bytes and 16 of 10 need no padding. */
export function base32Prefix(bytes: Uint8Array, count: number): string {
  let out = '';
  for (let i = 0; i < count; i++) out += String.fromCharCode(base32Code(bytes, i));
  return out;
}

/** Whether `text` holds base32Prefix(bytes, count) at `at`, without making it. */
export function hasBase32Prefix(bytes: Uint8Array, count: number, text: string, at: number): boolean {
  for (let i = 0; i < count; i++) if (text.charCodeAt(at + i) !== base32Code(bytes, i)) return false;
  return true;
}

// SHA-256 of ASCII text in plain JavaScript, without allocating: a 10,000-Service dump checks 110,000 chain
// names, and each call into node:crypto costs several times the hashing of a 60-byte name (docs/performance.md#memory).
// Other text goes to node:crypto.
const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
const INITIAL = new Int32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
const state = new Int32Array(8);
const w = new Int32Array(64);
const digest = new Uint8Array(32);

function compress(): void {
  for (let t = 16; t < 64; t++) {
    const a = w[t - 15];
    const b = w[t - 2];
    const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
    const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
    w[t] = (w[t - 16] + s0 + w[t - 7] + s1) | 0;
  }
  let a = state[0],
    b = state[1],
    c = state[2],
    d = state[3],
    e = state[4],
    f = state[5],
    g = state[6],
    h = state[7];
  for (let t = 0; t < 64; t++) {
    const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (h + S1 + ((e & f) ^ (~e & g)) + K[t] + w[t]) | 0;
    const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  state[0] += a;
  state[1] += b;
  state[2] += c;
  state[3] += d;
  state[4] += e;
  state[5] += f;
  state[6] += g;
  state[7] += h;
}

// SHA-256 of ASCII text fed byte by byte, in pieces if need be: the endpoint checks hash
// `servicePortName + protocol + "ip:port"` for 100,000 endpoints and need not make that text first.
let pieceBytes = 0;

function startPieces(): void {
  state.set(INITIAL);
  w.fill(0, 0, 16);
  pieceBytes = 0;
}

function feedByte(byte: number): void {
  const at = pieceBytes & 63;
  w[at >> 2] |= byte << (24 - 8 * (at & 3));
  pieceBytes++;
  if ((pieceBytes & 63) === 0) {
    compress();
    w.fill(0, 0, 16);
  }
}

/** Feeds `text`; false (the hash is then wrong) when it is not ASCII. */
function feedAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 127) return false;
    feedByte(c);
  }
  return true;
}

/** Pads, ends the hash and writes it into `digest`. */
function finishPieces(): Uint8Array {
  const n = pieceBytes;
  // 0x80, zeros and the length in bits (big-endian) in the last 8 bytes of the last block.
  feedByte(0x80);
  while ((pieceBytes & 63) !== 56) feedByte(0);
  w[14] = Math.floor(n / 0x20000000); // n * 8 / 2^32
  w[15] = (n << 3) | 0;
  compress();
  for (let k = 0; k < 8; k++) {
    const v = state[k];
    digest[4 * k] = v >>> 24;
    digest[4 * k + 1] = (v >>> 16) & 255;
    digest[4 * k + 2] = (v >>> 8) & 255;
    digest[4 * k + 3] = v & 255;
  }
  return digest;
}

/** SHA-256 of `text` into `digest`; false (the digest is then wrong) when the text is not ASCII. */
function sha256Ascii(text: string): boolean {
  startPieces();
  if (!feedAscii(text)) return false;
  finishPieces();
  return true;
}

/** The raw SHA-256 of UTF-8 text; valid until the next call (no copy is made for ASCII text). */
export function sha256(text: string): Uint8Array {
  return sha256Ascii(text) ? digest : crypto.createHash('sha256').update(text, 'utf8').digest();
}

function hash16(text: string): string {
  return base32Prefix(sha256(text), 16);
}

/** The 16-character hash used by KUBE-SVC-, KUBE-SVL-, KUBE-EXT- and KUBE-FW- chains. */
export function portProtoHash(servicePortName: string, protocol: string): string {
  return hash16(servicePortName + protocol);
}

/** The 16-character hash used by KUBE-SEP- chains; `endpoint` is "ip:port" or "[ipv6]:port". */
export function endpointHash(servicePortName: string, protocol: string, endpoint: string): string {
  return hash16(servicePortName + protocol + endpoint);
}

/**
 * Whether `name` is `prefix` + endpointHash(servicePortName, protocol, formatHostPort(address, port)), without making
 * the hash's text nor its input: a catalog checks 100,000 endpoint chains and nearly all of them match.
 */
export function isEndpointHashName(name: string, prefix: string, servicePortName: string, protocol: string, address: string, port: number): boolean {
  if (name.length !== prefix.length + 16 || !name.startsWith(prefix)) return false;
  return hasBase32Prefix(endpointDigest(servicePortName, protocol, address, port), 16, name, prefix.length);
}

/** sha256(servicePortName + protocol + formatHostPort(address, port)), valid until the next hash. */
function endpointDigest(servicePortName: string, protocol: string, address: string, port: number): Uint8Array {
  const bracketed = address.includes(':');
  const portText = String(port);
  startPieces();
  if (feedAscii(servicePortName) && feedAscii(protocol) && (!bracketed || feedAscii('[')) && feedAscii(address) && feedAscii(bracketed ? ']:' : ':') && feedAscii(portText)) return finishPieces();
  return sha256(servicePortName + protocol + formatHostPort(address, port));
}
