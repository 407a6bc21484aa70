// Two writes that deadlock every time, whatever the timing (conflict-retries.test.ts here, and the server's
// rest-settings.test.ts). `cross_update(first, second)` adds 1 to row `first`, waits until another transaction holds
// row `second` (that row's xmax is the other transaction's while it is open), then adds 1 to row `second`: called as
// (1, 2) and (2, 1) at once, each waits for the other's row and PostgreSQL rolls one back (40P01). A sequence counts
// the attempts (nextval survives a rollback); an attempt after the first two does not wait. Crossing a row with itself
// is refused (23514), an error that is not a conflict.
import type postgres from 'postgres';

export const CROSSING_SQL = `
  create table public.crossed (id int primary key, n int not null default 0);
  create sequence public.crossed_attempts;
  create function public.cross_update(first int, second int) returns int language plpgsql volatile as $$
  declare
    attempt bigint := nextval('public.crossed_attempts');
  begin
    if first = second then
      raise exception 'one row cannot cross itself' using errcode = '23514';
    end if;
    update public.crossed set n = n + 1 where id = first;
    for i in 1..500 loop
      exit when attempt > 2 or (select xmax::text::bigint from public.crossed where id = second) <> 0;
      perform pg_sleep(0.01);
    end loop;
    update public.crossed set n = n + 1 where id = second;
    return attempt;
  end $$;
  grant select, update on public.crossed to service_role;
  grant usage on sequence public.crossed_attempts to service_role;
  grant execute on function public.cross_update(int, int) to service_role;`;

/** Rows 1 and 2 at 0, no attempt yet. */
export async function arrangeCrossing(sql: postgres.Sql): Promise<void> {
  await sql`truncate public.crossed`;
  await sql`insert into public.crossed (id) values (1), (2)`;
  await sql`select setval('public.crossed_attempts', 1, false)`;
}

/** How many times cross_update began, rolled-back attempts included. */
export async function crossingAttempts(sql: postgres.Sql): Promise<number> {
  const [s] = await sql`select last_value, is_called from public.crossed_attempts`;
  return s!.is_called ? Number(s!.last_value) : 0;
}

/** [id, n] of both rows: what committed. */
export async function crossedCounts(sql: postgres.Sql): Promise<number[][]> {
  return (await sql`select id, n from public.crossed order by id`).map((r) => [r.id as number, r.n as number]);
}
