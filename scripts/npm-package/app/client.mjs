// postgrest-js against the stranger's server; one `ok <name>` or `FAIL <name>` line per call.
import { createHmac } from 'node:crypto';
import { PostgrestClient } from '@supabase/postgrest-js';

const [url] = process.argv.slice(2).concat(process.env.REST_URL ?? '');
const b64 = (v) => Buffer.from(JSON.stringify(v)).toString('base64url');
const unsigned = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ role: 'todo_user' })}`;
const token = `${unsigned}.${createHmac('sha256', process.env.JWT_SECRET).update(unsigned).digest('base64url')}`;
const anon = new PostgrestClient(url);
const user = new PostgrestClient(url, { headers: { Authorization: `Bearer ${token}` } });

const check = (name, ok, detail) =>
  console.log(`${ok ? 'ok' : 'FAIL'} ${name}${ok ? '' : ` ${JSON.stringify(detail)}`}`);
const list = await anon.from('todos').select('id, task').order('id');
check('anonymous select', list.data?.length === 2 && list.data[0].task === 'finish tutorial 0', list);
const refused = await anon.from('todos').insert({ task: 'sneaky' });
check('anonymous insert refused (42501)', refused.error?.code === '42501', refused);
const added = await user.from('todos').insert({ task: 'learn how to auth' }).select('task').single();
check('insert with a token', added.data?.task === 'learn how to auth', added);
const updated = await user.from('todos').update({ done: true }).eq('id', 1).select('id, done');
check('update with a filter', updated.data?.[0]?.done === true, updated);
const filtered = await anon.from('todos').select('task', { count: 'exact' }).eq('done', false).like('task', '%auth%');
check('filters and exact count', filtered.count === 1 && filtered.data?.[0]?.task === 'learn how to auth', filtered);
const rpc = await anon.rpc('open_count');
check('rpc', rpc.data === 2, rpc);
const forged = await new PostgrestClient(url, { headers: { Authorization: `Bearer ${token}x` } })
  .from('todos')
  .select();
check('forged token refused (PGRST301)', forged.error?.code === 'PGRST301', forged);
