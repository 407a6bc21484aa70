// The console's entry: signed out, the sign-in page; signed in as a super admin, the page the hash names
// (#/status, #/users, ...) inside the layout; signed in as anyone else, a refusal and a sign-out.
import './console.css';
import { h, notice } from './dom.js';
import { renderLayout, PAGES } from './layout.js';
import { renderSignIn } from './pages/sign-in.js';
import { auth, isSuperAdmin } from './session.js';

const root = document.getElementById('console') as HTMLElement;

function currentRoute(): { page: string; params: URLSearchParams } {
  const [path, query] = location.hash.replace(/^#\/?/, '').split('?');
  return { page: PAGES.some((p) => p.id === path) ? path : 'status', params: new URLSearchParams(query ?? '') };
}

async function show(): Promise<void> {
  const { data } = await auth.getSession();
  if (!data.session) {
    renderSignIn(root, show);
    return;
  }
  const email = data.session.user.email ?? '';
  // The page starts loading while the check runs: a non-super-admin gets nothing from it that the API would not
  // give them anyway (the admin RPCs and the status refuse them), and a super admin sees data one round trip sooner.
  const check = isSuperAdmin().catch((error: Error) => error);
  const { page, params } = currentRoute();
  const shown = renderLayout(root, page, params, email, async () => {
    await auth.signOut({ scope: 'local' });
    location.hash = '';
    await show();
  });
  const allowed = await check;
  if (allowed instanceof Error) {
    root.replaceChildren(h('main', {}, h('h1', {}, 'Console'), notice(allowed.message, 'alert')));
    return;
  }
  if (!allowed) {
    await auth.signOut({ scope: 'local' });
    renderSignIn(root, show, `${email} is not a super admin: this console is for the server's operators only.`);
    return;
  }
  await shown;
}

window.addEventListener('hashchange', () => void show());
void show();
