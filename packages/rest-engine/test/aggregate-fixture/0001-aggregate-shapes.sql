-- Shapes for the tests of aggregates in embeds and spreads (test/aggregates-in-spreads.test.ts), after PostgREST's
-- own suite: works make parts on machines; each machine belongs to a plant and a kind; each work has one cost row.
create table plants (id int primary key, name text not null);
create table kinds (id int primary key, name text not null);
create table machines (
  id int primary key, name text not null, plant_id int references plants, kind_id int references kinds);
create table machine_costs (machine_id int primary key references machines, cost numeric, extra jsonb);
create table crews (id int primary key, name text not null);
-- A junction with a primary key of its own: to-one to machines and to crews.
create table crew_machines (
  crew_id int not null references crews, machine_id int not null references machines, primary key (crew_id, machine_id));
create table plant_sheds (id int primary key, plant_id int references plants, size int);

insert into plants values (1, 'North'), (2, 'South'), (3, 'East');
insert into kinds values (1, 'Press'), (2, 'Lathe');
insert into machines values (1, 'M1', 1, 1), (2, 'M2', 1, 2), (3, 'M3', 2, 1), (4, 'M4', 2, 1), (5, 'M5', 3, 2);
insert into machine_costs values
  (1, 100, '{"n": "1"}'), (2, 50, '{"n": "2"}'), (3, 20, '{"n": "3"}'), (4, 30, '{"n": "4"}'), (5, null, null);
insert into crews values (1, 'Day'), (2, 'Night'), (3, 'Idle');
insert into crew_machines values (1, 1), (1, 2), (1, 3), (2, 3), (2, 4), (2, 5);
insert into plant_sheds values (1, 1, 10), (2, 1, 20), (3, 2, 5);

grant select on plants, kinds, machines, machine_costs, crews, crew_machines, plant_sheds to service_role;

-- A computed relationship, to-one (ROWS 1): a machine's plant.
create function machine_plant(machines) returns setof plants as $$
  select * from plants where id = $1.plant_id
$$ language sql stable rows 1;
grant execute on function machine_plant(machines) to service_role;
