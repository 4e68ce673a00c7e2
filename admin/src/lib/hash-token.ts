import { useEffect, useState } from 'react';

/**
 * The one-time token of a mailed link (`…#token=…`: a fragment never reaches a server log or a
 * Referer). Read once, then removed from the address bar.
 */
export function useHashToken(): string | undefined {
  const [token] = useState(() => new URLSearchParams(window.location.hash.slice(1)).get('token') ?? undefined);
  useEffect(() => {
    if (window.location.hash) window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search);
  }, []);
  return token;
}
