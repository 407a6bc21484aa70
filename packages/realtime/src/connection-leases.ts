// REALTIME_MAX_CONNECTIONS_PER_IP over every instance on the database: each open connection holds a lease row
// (realtime.connections) owned by its instance, and triggers keep the count per address (realtime.connection_counts).
// Leases go when the connection closes, and with their instance when it stops or is swept for not announcing itself
// (a crash), so a count never leaks.
import { randomUUID } from 'node:crypto';
import type postgres from 'postgres';

export class ConnectionLeases {
  constructor(
    /** Owner pool: the lease table is shared instance state. */
    private readonly sql: postgres.Sql,
    private readonly instanceId: string,
    private readonly maxPerIp: number,
  ) {}

  /**
   * A lease for one more connection from the address, or undefined when it has its maximum already. One statement:
   * the upsert locks the address's row in realtime.connection_counts and passes only under the maximum; the lease's
   * insert then raises the count by trigger before that lock is let go, so simultaneous upgrades cannot all pass.
   */
  async acquire(clientIp: string): Promise<string | undefined> {
    const id = randomUUID();
    const taken = await this.sql`
      with slot as (
        insert into realtime.connection_counts as c (client_ip, open) values (${clientIp}, 0)
        on conflict (client_ip) do update set open = c.open where c.open < ${this.maxPerIp}
        returning 1)
      insert into realtime.connections (id, client_ip, instance_id)
      select ${id}, ${clientIp}, ${this.instanceId} from slot
      returning id`;
    return taken.length ? id : undefined;
  }

  /** Takes again the leases of open connections (after the instance was swept while alive), over the limit or not. */
  async restore(held: ReadonlyMap<string, string>): Promise<void> {
    if (!held.size) return;
    await this.sql`
      insert into realtime.connections (id, client_ip, instance_id)
      select id, ip, ${this.instanceId} from unnest(${[...held.keys()]}::text[], ${[...held.values()]}::text[]) t(id, ip)
      on conflict (id) do nothing`;
  }

  async release(id: string): Promise<void> {
    await this.sql`delete from realtime.connections where id = ${id}`;
  }
}
