// The real servers of one virtual service by address and port, for the lookups of restore commands (-a, -e, -d)
// and of a service listed a second time: without it each such line scanned every server before it.
import type { RealServer } from '../../model/ipvs';

/**
 * "The first live server with this key", as a scan of the service's list would find it. The list is only
 * appended to while parsing (a deleted server is marked in `gone`, and the list compacted at the end), so the
 * index catches up with its new tail on each lookup and costs nothing until the first one.
 */
export class ServerIndex {
  private indexed = 0;
  private readonly byKey = new Map<string, { servers: RealServer[]; head: number }>();

  constructor(private readonly key: (r: RealServer) => string) {}

  first(list: readonly RealServer[], key: string, gone: ReadonlySet<RealServer>): RealServer | undefined {
    for (; this.indexed < list.length; this.indexed++) {
      const r = list[this.indexed];
      const k = this.key(r);
      const entry = this.byKey.get(k);
      if (entry) entry.servers.push(r);
      else this.byKey.set(k, { servers: [r], head: 0 });
    }
    const entry = this.byKey.get(key);
    if (!entry) return undefined;
    // Deletions take the first live one: the deleted ones are mostly at the head, passed once.
    while (entry.head < entry.servers.length && gone.has(entry.servers[entry.head])) entry.head++;
    for (let k = entry.head; k < entry.servers.length; k++) if (!gone.has(entry.servers[k])) return entry.servers[k];
    return undefined;
  }
}

/** The key a restore command finds a server by: its address and port (0 when none). */
export const restoreKey = (address: string, port: number | undefined): string => `${address} ${port ?? 0}`;

/** The key a second listing of a service finds a server by: address and port, or the port's name. */
export const listingKey = (address: string, port: number | string | undefined): string => `${address} ${typeof port === 'number' ? port : port === undefined ? '-' : `~${port}`}`;
