// The check of a `-s`/`-d` value: what iptables-restore would refuse or resolve as a host name.
import type { Severity } from '../../model/diagnostics';
import { t } from '../../l10n';
import { isIpv4 } from '../../model/address';

const IPV4_RE = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** undefined when fine, 'hostname' for names (resolved by iptables at load time), else a problem. */
export function addressProblem(value: string): { severity: Severity; message: string } | 'hostname' | undefined {
  // The common case without the arrays and regular expressions below: a large dump has 200,000 of them.
  if (isIpv4WithPrefix(value)) return undefined;
  const [address, mask, ...rest] = value.split('/');
  if (rest.length > 0) return { severity: 'error', message: t('{0} is not an address.', value) };
  if (/^[\d.]+$/.test(address)) {
    const m = IPV4_RE.exec(address);
    if (!m || m.slice(1).some((o) => Number(o) > 255)) return { severity: 'error', message: t('{0} is not an IPv4 address.', address) };
    if (mask !== undefined) {
      if (/^\d{1,2}$/.test(mask)) {
        if (Number(mask) > 32) return { severity: 'error', message: t('Prefix length /{0} is more than 32.', mask) };
      } else if (!IPV4_RE.test(mask)) {
        return { severity: 'error', message: t('{0} is not a prefix length or netmask.', mask) };
      }
    }
    return undefined;
  }
  if (address.includes(':')) {
    if (!/^[0-9A-Fa-f:.]+$/.test(address) || (address.match(/::/g)?.length ?? 0) > 1) {
      return { severity: 'error', message: t('{0} is not an IPv6 address.', address) };
    }
    if (mask !== undefined && !(/^\d{1,3}$/.test(mask) && Number(mask) <= 128)) {
      return { severity: 'error', message: t('Prefix length /{0} is not 0–128.', mask) };
    }
    return undefined;
  }
  if (/^[A-Za-z0-9_]([A-Za-z0-9_.-]*[A-Za-z0-9_])?$/.test(address)) return 'hostname';
  return { severity: 'warning', message: t('{0} is neither an address nor a host name: iptables-restore cannot load it.', value) };
}

/** `a.b.c.d` or `a.b.c.d/N` with N from 0 to 32 (one or two digits): addresses addressProblem accepts. */
function isIpv4WithPrefix(value: string): boolean {
  const slash = value.indexOf('/');
  if (slash < 0) return isIpv4(value);
  const digits = value.length - slash - 1;
  if (digits < 1 || digits > 2) return false;
  let prefix = 0;
  for (let k = slash + 1; k < value.length; k++) {
    const c = value.charCodeAt(k);
    if (c < 48 || c > 57) return false;
    prefix = prefix * 10 + (c - 48);
  }
  return prefix <= 32 && isIpv4(value.slice(0, slash));
}
