import { InvalidArgument } from '../platform/errors.js';

/** Money on the wire (RUNTIME.md): `{currency_code, units (decimal string), nanos}`; units and nanos share a sign. */
export interface Money {
  currency_code: 'USD';
  units: string;
  nanos: number;
}

const NANOS_PER_UNIT = 1_000_000_000;

/** JSON Schema of Money, for declarations and OpenAPI. */
export const MONEY_SCHEMA = {
  $id: 'Money',
  type: 'object',
  description: 'An amount of money: `units` (a decimal string) plus `nanos` billionths, in `currency_code`.',
  properties: {
    currency_code: { type: 'string', enum: ['USD'], description: 'ISO 4217 code; the AI balance is kept in US dollars.' },
    units: { type: 'string', maxLength: 13, pattern: '^-?[0-9]{1,12}$', description: 'Whole units, as a decimal string.' },
    nanos: { type: 'integer', format: 'int32', minimum: -999999999, maximum: 999999999, description: 'Billionths of a unit; same sign as `units`.' },
  },
  required: ['currency_code', 'units', 'nanos'],
  additionalProperties: false,
  example: { currency_code: 'USD', units: '12', nanos: 340000000 },
} as const;

/** Integer nano-dollars (as stored) → Money. */
export function moneyFromNanos(nanos: number | bigint): Money {
  const value = BigInt(nanos);
  const units = value / BigInt(NANOS_PER_UNIT);
  const rest = value % BigInt(NANOS_PER_UNIT);
  return { currency_code: 'USD', units: units.toString(), nanos: Number(rest) };
}

/** Money from a request → integer nano-dollars; refuses mixed signs or another currency, naming `field`. */
export function nanosFromMoney(money: Money, field: string): number {
  if (money.currency_code !== 'USD') throw InvalidArgument.field(`${field}.currency_code`, 'must be USD');
  const units = BigInt(money.units);
  if ((units > 0n && money.nanos < 0) || (units < 0n && money.nanos > 0)) {
    throw InvalidArgument.field(`${field}.nanos`, 'must have the same sign as units');
  }
  const total = units * BigInt(NANOS_PER_UNIT) + BigInt(money.nanos);
  if (total > BigInt(Number.MAX_SAFE_INTEGER) || total < -BigInt(Number.MAX_SAFE_INTEGER)) throw InvalidArgument.field(field, 'is too large');
  return Number(total);
}

/** A decimal dollar string (`"5.00"`, `"0.125"`) → nano-dollars. */
export function nanosFromDecimal(text: string): number {
  const match = /^(-?)(\d+)(?:\.(\d{1,9}))?$/.exec(text.trim());
  if (!match) throw new Error(`not a decimal amount: ${text}`);
  const [, sign, whole, fraction = ''] = match;
  const value = BigInt(whole) * BigInt(NANOS_PER_UNIT) + BigInt(fraction.padEnd(9, '0'));
  return Number(sign ? -value : value);
}

/** Cost of `count` units at a price per million units, rounded up to the next nano-dollar. */
export function costPerMillion(count: number, pricePerMillionNanos: number | undefined): number {
  if (!count || !pricePerMillionNanos) return 0;
  const product = BigInt(count) * BigInt(pricePerMillionNanos);
  return Number((product + 999_999n) / 1_000_000n);
}
