// The console's entry: signed out, the sign-in page; signed in as a super admin, the page the hash names
// (#/status, #/users, ...) inside the layout; signed in as anyone else, a refusal and a sign-out.
import './console.css';
import { h, notice } from './dom.js';
import { renderLayout, PAGES } from './layout.js';
import { renderSignIn } from './pages/sign-in.js';
import { isSuperAdmin, supabase } from './session.js';

const root = document.getElementById('console') as HTMLElement;

function currentRoute(): { page: string; params: URLSearchParams } {
  const [path, query] = location.hash.replace(/^#\/?/, '').split('?');
  return { page: PAGES.some((p) => p.id === path) ? path : 'status', params: new URLSearchParams(query ?? '') };
}

async function show(): Promise<void> {
  const { data } = await supabase.auth.getSession();
  if (!data.session) {
    renderSignIn(root, show);
    return;
  }
  let allowed: boolean;
  try {
    allowed = await isSuperAdmin();
  } catch (error) {
    root.replaceChildren(h('main', {}, h('h1', {}, 'Console'), notice((error as Error).message, 'alert')));
    return;
  }
  if (!allowed) {
    const email = data.session.user.email ?? 'This account';
    await supabase.auth.signOut({ scope: 'local' });
    renderSignIn(root, show, `${email} is not a super admin: this console is for the server's operators only.`);
    return;
  }
  const { page, params } = currentRoute();
  await renderLayout(root, page, params, data.session.user.email ?? '', async () => {
    await supabase.auth.signOut({ scope: 'local' });
    location.hash = '';
    await show();
  });
}

window.addEventListener('hashchange', () => void show());
void show();
