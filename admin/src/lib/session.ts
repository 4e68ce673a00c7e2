/**
 * The signed-in session: the bearer token (`users:authenticate`, `users:exchange_handoff`,
 * `invitations:accept`) kept in localStorage so every tab and a mailed link opened in a new tab
 * share it; never a cookie (the API takes the Authorization header only). The SDK's client
 * refreshes the token through `users:refresh_token` before calls near its end, and a timer here
 * refreshes it ahead of expiry while the tab stays open. A 401 on any call ends the session: the
 * router then sends the person to sign-in and back to where they were.
 */
import { useSyncExternalStore } from 'react';
import { ApiError, clientWithToken, type SignedInClient, type Token } from '@siteplatform/sdk';
import { baseUrl } from './api';

const STORAGE_KEY = 'siteplatform.admin.session';
const LAST_WEBSITE_KEY = 'siteplatform.admin.last-website';
/**
 * Refresh this long before the token ends (the SDK refreshes within 60 s of the end on a call), at
 * most half of what is left, so a short-lived token is not refreshed in a loop.
 */
const REFRESH_AHEAD_MS = 120_000;

interface Stored {
  token: string;
  expireTime: string;
}

export interface SessionState {
  client: SignedInClient;
  expireTime: Date;
}

type Listener = () => void;

class SessionStore {
  private state: SessionState | null = null;
  private readonly listeners = new Set<Listener>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Set when the session ended by a 401 (not by signing out): sign-in then says why. */
  expiredReason: string | undefined;

  constructor() {
    this.load();
    window.addEventListener('storage', (event) => {
      // Another tab signed in, refreshed or signed out.
      if (event.key === STORAGE_KEY) this.load();
    });
  }

  private load() {
    const raw = window.localStorage.getItem(STORAGE_KEY);
    let stored: Stored | undefined;
    try {
      stored = raw ? (JSON.parse(raw) as Stored) : undefined;
    } catch {
      stored = undefined;
    }
    const expireTime = stored ? new Date(stored.expireTime) : undefined;
    if (stored && expireTime && expireTime.getTime() > Date.now()) this.use({ token: stored.token, expireTime }, false);
    else this.clear(this.state !== null);
  }

  private save(token: Token) {
    window.localStorage.setItem(STORAGE_KEY, JSON.stringify({ token: token.token, expireTime: token.expireTime.toISOString() } satisfies Stored));
  }

  private use(token: Token, persist: boolean) {
    if (persist) this.save(token);
    // Same token (another tab's storage event echoing ours): keep the client.
    if (this.state && this.state.client.session.token === token.token) return;
    const client = clientWithToken({
      baseUrl: baseUrl(),
      token: token.token,
      expireTime: token.expireTime,
      onToken: (fresh) => {
        this.save(fresh);
        if (this.state) this.state = { ...this.state, expireTime: fresh.expireTime };
        this.schedule(fresh.expireTime);
        this.emit();
      },
    });
    client.use({
      onResponse: ({ response }) => {
        if (response.status === 401) this.expire();
        return undefined;
      },
    });
    this.state = { client, expireTime: token.expireTime };
    this.schedule(token.expireTime);
    this.emit();
  }

  private schedule(expireTime: Date) {
    clearTimeout(this.timer);
    const left = expireTime.getTime() - Date.now();
    const wait = Math.max(left / 2, left - REFRESH_AHEAD_MS);
    this.timer = setTimeout(() => {
      this.state?.client.session.refresh().catch((err) => {
        if (ApiError.is(err, 'UNAUTHENTICATED')) this.expire();
      });
    }, Math.min(wait, 2 ** 31 - 1));
  }

  private clear(emit: boolean) {
    clearTimeout(this.timer);
    this.state = null;
    window.localStorage.removeItem(STORAGE_KEY);
    if (emit) this.emit();
  }

  private emit() {
    for (const listener of this.listeners) listener();
  }

  subscribe = (listener: Listener) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  get current(): SessionState | null {
    return this.state;
  }

  /** Starts a session from a token the API answered. */
  signedIn(token: { token: string; expire_time: string } | Token) {
    this.expiredReason = undefined;
    const t = 'expire_time' in token ? { token: token.token, expireTime: new Date(token.expire_time) } : token;
    this.state = null;
    this.use(t, true);
  }

  /** Forgets the token here (a JWT cannot be revoked alone: "sign out everywhere" revokes them all). */
  signOut() {
    this.expiredReason = undefined;
    this.clear(true);
  }

  /** The token stopped working (401): forget it; the router sends the person to sign-in. */
  expire() {
    if (!this.state) return;
    this.expiredReason = 'Your session ended. Sign in again to continue.';
    this.clear(true);
  }
}

export const session = new SessionStore();

/** The current session (re-renders on sign-in, refresh, sign-out). */
export function useSession(): SessionState | null {
  return useSyncExternalStore(session.subscribe, () => session.current);
}

let lastClient: SignedInClient | undefined;

/**
 * The signed-in client; only under the signed-in layout, which guarantees a session. In the
 * moment between a session ending (401) and the move to sign-in, screens still render once: they
 * get the ended session's client (its calls answer 401), not an exception.
 */
export function useApi(): SignedInClient {
  const current = useSession();
  if (current) lastClient = current.client;
  if (!lastClient) throw new Error('useApi outside a signed-in screen');
  return lastClient;
}

/** The website the person used last, so `/` takes them back to it. */
export const lastWebsite = {
  get: (): string | null => window.localStorage.getItem(LAST_WEBSITE_KEY),
  set: (websiteId: string) => window.localStorage.setItem(LAST_WEBSITE_KEY, websiteId),
  clear: () => window.localStorage.removeItem(LAST_WEBSITE_KEY),
};
