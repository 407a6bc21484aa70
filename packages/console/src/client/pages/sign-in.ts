// Sign-in with e-mail and password through /auth/v1; `refusal` explains why the last account was turned away.
import { h, markReady, notice } from '../dom.js';
import { auth } from '../session.js';

export function renderSignIn(root: HTMLElement, signedIn: () => Promise<void>, refusal?: string): void {
  const email = h('input', { id: 'email', name: 'email', type: 'email', autocomplete: 'username', required: true });
  const password = h('input', {
    id: 'password',
    name: 'password',
    type: 'password',
    autocomplete: 'current-password',
    required: true,
  });
  const message = h('div', {}, refusal ? notice(refusal, 'alert') : null);
  const submit = async (event: Event) => {
    event.preventDefault();
    message.replaceChildren(notice('Signing in…'));
    const { error } = await auth.signInWithPassword({
      email: (email as HTMLInputElement).value,
      password: (password as HTMLInputElement).value,
    });
    if (error) {
      message.replaceChildren(notice(`Sign-in failed: ${error.message}`, 'alert'));
      return;
    }
    await signedIn();
  };
  root.replaceChildren(
    h(
      'main',
      { id: 'main', class: 'sign-in' },
      h('h1', {}, 'Sign in to the console'),
      h(
        'form',
        { 'aria-labelledby': 'sign-in-title', onsubmit: ((e: Event) => void submit(e)) as EventListener },
        h('h2', { id: 'sign-in-title', class: 'visually-hidden' }, 'Super admin sign-in'),
        h('label', { for: 'email' }, 'E-mail'),
        email,
        h('label', { for: 'password' }, 'Password'),
        password,
        h('button', { type: 'submit' }, 'Sign in'),
      ),
      message,
    ),
  );
  document.title = 'Sign in · auction-ops console';
  markReady('sign-in');
}
