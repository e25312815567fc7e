import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { destinationHasLeadingZero, parseDestination } from '../../src/core/trace';
import { formatAddress, hasLeadingZeroPart, parseAddress, parseUserAddress } from '../../src/core/model/address';

describe('addresses a person types', () => {
  it('refuses IPv4 parts with leading zeros (inet_aton would read them as octal)', () => {
    for (const text of ['010.096.000.010', '10.96.0.010', '::ffff:10.096.0.1', '[::ffff:010.0.0.1]', ' 01.2.3.4 ']) {
      expect(hasLeadingZeroPart(text)).toBe(true);
      expect(parseUserAddress(text)).toBeUndefined();
    }
    expect(parseDestination('010.096.000.010:53/udp')).toBeUndefined();
  });

  it('reads ordinary addresses as the dumps’ parser does', () => {
    for (const text of ['10.96.0.10', '0.0.0.0', '10.0.0.0', '192.168.100.1', 'fd00::10', '[fd00:0010::1]', '::ffff:10.0.0.1', '::']) {
      expect(hasLeadingZeroPart(text)).toBe(false);
      expect(parseUserAddress(text)).toEqual(parseAddress(text));
      expect(parseUserAddress(text)).toBeDefined();
    }
    expect(parseDestination('[fd00::10]:443')).toEqual({ address: 'fd00::10', port: 443, protocol: 'tcp' });
  });

  it('never throws, and `::` stands for at least one group', () => {
    expect(parseAddress('1:2:3:4:5:6:7:8::9')).toBeUndefined();
    expect(parseAddress('1:2:3:4::5:6:7:8')).toBeUndefined();
    expect(formatAddress(parseAddress('1:2:3:4:5:6:7::')!)).toBe('1:2:3:4:5:6:7:0');
    const text = fc.array(fc.constantFrom('1', 'f', ':', '::', '.', '0', '255', '[', ']', ' '), { maxLength: 24 }).map((a) => a.join(''));
    fc.assert(
      fc.property(text, (t) => (parseUserAddress(t), parseDestination(`${t}:1`), true)),
      { numRuns: 20_000 },
    );
  });
});

describe('destinations a person types', () => {
  it('says when the address has a leading-zero IPv4 part, for a hint', () => {
    expect(destinationHasLeadingZero('010.096.000.010:53/udp')).toBe(true);
    expect(destinationHasLeadingZero('[::ffff:10.0.0.01]:443')).toBe(true);
    expect(destinationHasLeadingZero('10.96.0.10:053')).toBe(false);
    expect(destinationHasLeadingZero('10.96.0.10:53/udp')).toBe(false);
  });
});
