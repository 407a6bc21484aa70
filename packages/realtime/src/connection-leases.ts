// REALTIME_MAX_CONNECTIONS_PER_IP over every instance on the database: each open connection holds a lease row
// (realtime.connections) owned by its instance. Leases go when the connection closes, and with their instance when
// it stops or is swept for not announcing itself (a crash), so a count never leaks.
import { randomUUID } from 'node:crypto';
import type postgres from 'postgres';

export class ConnectionLeases {
  constructor(
    /** Owner pool: the lease table is shared instance state. */
    private readonly sql: postgres.Sql,
    private readonly instanceId: string,
    private readonly maxPerIp: number,
  ) {}

  /** A lease for one more connection from the address, or undefined when it has its maximum already. */
  async acquire(clientIp: string): Promise<string | undefined> {
    const id = randomUUID();
    return this.sql.begin(async (tx) => {
      // Serializes the count and the insert per address, so simultaneous upgrades cannot all pass. The count runs
      // in a statement after the lock: a snapshot taken before it could miss a lease committed meanwhile.
      await tx`select pg_advisory_xact_lock(hashtextextended(${`realtime.connections:${clientIp}`}, 0))`;
      const taken = await tx`
        insert into realtime.connections (id, client_ip, instance_id)
        select ${id}, ${clientIp}, ${this.instanceId}
         where (select count(*) from realtime.connections where client_ip = ${clientIp}) < ${this.maxPerIp}
        returning id`;
      return taken.length ? id : undefined;
    });
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
