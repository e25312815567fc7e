// An ipvsadm endpoint: `10.0.0.1:443`, `[fd00::1]:80`, `kubernetes.default.svc:https`, or an address alone.
import type { Severity } from '../../model/diagnostics';
import type { IpvsEndpoint, IpvsFamily } from '../../model/ipvs';
import type { Range } from '../../model/range';
import { isIpv4, isIpv6 } from '../../model/address';
import { t } from '../../l10n';
import { parsePort } from './address';

export interface EndpointResult {
  endpoint: IpvsEndpoint;
  /** Whether the text had a `:port` part at all (restore input may leave it out). */
  hasPort: boolean;
  problems: Array<{ severity: Severity; code: string; message: string }>;
}

/** Parses `10.0.0.1:443`, `[fd00::1]:80`, `kubernetes.default.svc:https`, `10.0.0.1` (restore input without a port). */
export function parseEndpoint(text: string, range: Range): EndpointResult {
  const problems: EndpointResult['problems'] = [];
  let host = text;
  let portText: string | undefined;
  let family: IpvsFamily = 'ipv4';
  let bracketed = false;
  if (text.startsWith('[')) {
    const m = /^\[([^\]]*)\](?::(.*))?$/.exec(text);
    if (m) {
      host = m[1];
      portText = m[2];
      bracketed = true;
      family = 'ipv6';
    } else {
      problems.push({ severity: 'error', code: 'bad-address', message: t('{0} is not an address: the closing bracket is missing.', text) });
    }
  } else {
    const colons = text.split(':').length - 1;
    if (colons >= 2) {
      family = 'ipv6';
    } else if (colons === 1) {
      const at = text.indexOf(':');
      host = text.slice(0, at);
      portText = text.slice(at + 1);
    }
  }
  const endpoint: IpvsEndpoint = { address: host, family, text, range };
  if (family === 'ipv6' && isIpv6(host)) {
    // fine
  } else if (/^[\d.]+$/.test(host)) {
    if (!isIpv4(host)) problems.push({ severity: 'error', code: 'bad-address', message: t('{0} is not an IPv4 address.', host) });
  } else if (!bracketed && family === 'ipv6') {
    problems.push({ severity: 'error', code: 'bad-address', message: t('{0} is not an IPv6 address.', host) });
  } else if (/^[A-Za-z0-9_]([A-Za-z0-9_.-]*[A-Za-z0-9_.])?$/.test(host)) {
    endpoint.hostname = true;
  } else if (problems.length === 0) {
    problems.push({ severity: 'error', code: 'bad-address', message: t('{0} is not an address or a host name.', host === '' ? text : host) });
  }
  if (portText !== undefined) {
    const p = parsePort(portText);
    if (!p.valid) {
      problems.push({ severity: 'error', code: 'bad-port', message: t('{0} is not a port.', portText === '' ? text : portText) });
    } else {
      endpoint.port = p.port;
      if (p.name !== undefined) endpoint.portName = p.name;
    }
  }
  return { endpoint, problems, hasPort: portText !== undefined };
}
