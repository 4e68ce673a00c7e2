/**
 * Money as the API carries it (`units` decimal string + `nanos` billionths, USD) — shown and typed
 * as dollars without going through floating point (balances are summed from nano-dollar debits).
 */
export interface Money {
  currency_code: 'USD';
  units: string;
  nanos: number;
}

const NANOS = 1_000_000_000n;

export function moneyToNanos(m: Pick<Money, 'units' | 'nanos'>): bigint {
  return BigInt(m.units) * NANOS + BigInt(m.nanos);
}

export function nanosToMoney(total: bigint): Money {
  const negative = total < 0n;
  const abs = negative ? -total : total;
  const units = abs / NANOS;
  const nanos = Number(abs % NANOS);
  return { currency_code: 'USD', units: `${negative && units !== 0n ? '-' : ''}${units}`, nanos: negative ? -nanos : nanos };
}

/**
 * `$12.34`, `-$0.02175`, `$0.00`: at least two decimals, more only where the amount has them (a
 * run costs fractions of a cent), never rounded away.
 */
export function formatMoney(m: Pick<Money, 'units' | 'nanos'> | undefined | null): string {
  if (!m) return '—';
  const total = moneyToNanos(m);
  const negative = total < 0n;
  const abs = negative ? -total : total;
  const units = (abs / NANOS).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  let fraction = (abs % NANOS).toString().padStart(9, '0').replace(/0+$/, '');
  if (fraction.length < 2) fraction = fraction.padEnd(2, '0');
  return `${negative ? '-' : ''}$${units}.${fraction}`;
}

/** A dollar amount typed by a person (`12`, `12.5`, `0.000001`) → Money; undefined when it is not one. */
export function parseDollars(text: string): Money | undefined {
  const match = /^\s*(-)?\$?\s*(\d{1,12})(?:\.(\d{1,9}))?\s*$/.exec(text);
  if (!match) return undefined;
  const total = BigInt(match[2]!) * NANOS + BigInt((match[3] ?? '').padEnd(9, '0') || '0');
  return nanosToMoney(match[1] ? -total : total);
}

/** Dollars as a number, for charts only (sums stay in nanos). */
export const moneyToNumber = (m: Pick<Money, 'units' | 'nanos'> | undefined): number => (m ? Number(moneyToNanos(m)) / 1e9 : 0);
