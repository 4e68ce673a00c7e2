import Bowser from 'bowser';
import { isbot } from 'isbot';
import { LruCache } from '../platform/cache.js';

/** What a hit's user agent tells: `device` is `desktop` | `mobile` | `tablet`; families are `Unknown` when unsure. */
export interface UserAgentFacts {
  bot: boolean;
  device: 'desktop' | 'mobile' | 'tablet';
  browser: string;
  os: string;
}

/** Distinct user agents kept parsed per process; far fewer exist in practice than page views. */
export const USER_AGENT_CACHE_SIZE = 10_000;
/** A user agent longer than this is cut (real ones are under 400 characters); bounds the cache's memory. */
export const MAX_USER_AGENT_LENGTH = 512;

/**
 * User-agent parsing for analytics: the bot filter (`isbot`) and device / browser / OS families
 * (`bowser`, MIT), memoised in an LRU cache per distinct user agent since parsing costs far more
 * than a page view's other work. An absent user agent counts as a bot (browsers always send one).
 */
export function createUserAgentReader(size = USER_AGENT_CACHE_SIZE): (userAgent: string) => UserAgentFacts {
  const cache = new LruCache<string, UserAgentFacts>(size);
  return (userAgent) => {
    const known = cache.get(userAgent);
    if (known) return known;
    const facts = parseUserAgent(userAgent);
    cache.set(userAgent, facts);
    return facts;
  };
}

export function parseUserAgent(userAgent: string): UserAgentFacts {
  if (userAgent.trim() === '' || isbot(userAgent)) return { bot: true, device: 'desktop', browser: 'Unknown', os: 'Unknown' };
  const parsed = Bowser.parse(userAgent);
  const platform = parsed.platform.type;
  return {
    bot: platform === 'bot',
    device: platform === 'mobile' || platform === 'tablet' ? platform : 'desktop',
    browser: parsed.browser.name || 'Unknown',
    os: parsed.os.name || 'Unknown',
  };
}
