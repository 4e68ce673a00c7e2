import type { EventType, Events } from '../platform/events/events.js';
import { InvalidArgument } from '../platform/errors.js';

/** The event a `:ping` sends; in the catalogue so a subscription may name it, but every webhook gets its pings. */
export const PING_EVENT_TYPE = 'webhook.ping';

const PING: EventType = { type: PING_EVENT_TYPE, collection: 'webhooks', scope: 'website', description: 'Sent by `:ping` to the one webhook pinged (never fanned out).' };

/**
 * What webhooks may subscribe to: every website-scoped event type the platform writes (the engine
 * declares `{singular}.created|updated|deleted` of every resource and each declared transition;
 * areas declare the rest), plus `webhook.ping`. Account-scoped events (AI, billing, members) have no
 * website and are not delivered to website webhooks.
 */
export function webhookEventTypes(events: Events): EventType[] {
  const types = events.catalogue().filter((t) => t.scope === 'website');
  if (!types.some((t) => t.type === PING_EVENT_TYPE)) types.push(PING);
  return types.sort((a, b) => a.type.localeCompare(b.type));
}

/** A subscription pattern matches a type: the type itself, `{prefix}.*` (every type of one collection) or `*`. */
export function matches(pattern: string, type: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('.*')) return type.startsWith(pattern.slice(0, -1));
  return pattern === type;
}

/** Refuses patterns that match no type of the catalogue (a typo would otherwise never deliver), naming the entry. */
export function checkEventTypes(patterns: readonly string[], catalogue: readonly EventType[]): void {
  if (patterns.length === 0) throw InvalidArgument.field('event_types', 'must name at least one event type (or `*`)');
  patterns.forEach((pattern, i) => {
    if (!catalogue.some((t) => matches(pattern, t.type))) {
      throw InvalidArgument.field('event_types', `entry ${i}: ${pattern} is not an event type of the webhook_event_types catalogue (or a \`collection.*\` wildcard of one)`);
    }
  });
}
