// kube-proxy's chain-name hashing (pkg/proxy/iptables/proxier.go):
//   portProtoHash(servicePortName, protocol) = base32.StdEncoding(sha256(servicePortName + protocol))[:16]
//   KUBE-SVC-/KUBE-SVL-/KUBE-EXT-/KUBE-FW- + portProtoHash(...)
//   KUBE-SEP- + base32.StdEncoding(sha256(servicePortName + protocol + endpoint))[:16]
// servicePortName is "namespace/name" or "namespace/name:portName"; protocol is lower case ("tcp");
// endpoint is "ip:port" ("[ipv6]:port").
import * as crypto from 'node:crypto';

const BASE32_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 ("StdEncoding") of the first 10 bytes = exactly 16 characters, no padding involved. */
function base32First16(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (let i = 0; i < 10; i++) {
    buffer = (buffer << 8) | bytes[i]!;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += BASE32_ALPHABET[(buffer >>> bits) & 31];
    }
    buffer &= (1 << bits) - 1;
  }
  return out;
}

// The one-shot crypto.hash (Node 20.12+) costs a fraction of a Hash object: a large dump checks 100,000 names.
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'buffer') => Buffer }).hash;

function hash16(text: string): string {
  return base32First16(oneShot ? oneShot('sha256', text, 'buffer') : crypto.createHash('sha256').update(text, 'utf8').digest());
}

/** The 16-character hash used by KUBE-SVC-, KUBE-SVL-, KUBE-EXT- and KUBE-FW- chains. */
export function portProtoHash(servicePortName: string, protocol: string): string {
  return hash16(servicePortName + protocol);
}

/** The 16-character hash used by KUBE-SEP- chains; `endpoint` is "ip:port" or "[ipv6]:port". */
export function endpointHash(servicePortName: string, protocol: string, endpoint: string): string {
  return hash16(servicePortName + protocol + endpoint);
}
