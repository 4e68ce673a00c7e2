import { Unavailable } from '../../platform/errors.js';
import type { Provider } from '../catalogue.js';
import type { Usage } from '../../ai-billing/index.js';

/** What one attempt asks a provider for. */
export interface ProviderRequest {
  apiKey: string;
  /** The provider's own model id (`external_id`). */
  model: string;
  /** The rendered instruction as the system message, when there is user text. */
  system?: string;
  /** `input.text`, or the rendered instruction when there is none (and the image prompt). */
  user: string;
  maxTokens: number;
  /** Lower-case effort level, when the agent sets one. */
  effort?: 'low' | 'medium' | 'high' | 'xhigh' | 'max';
  outputFormat: 'TEXT' | 'JSON' | 'IMAGE';
  outputSchema?: Record<string, unknown>;
  image?: { width: number; height: number; quality?: 'low' | 'medium' | 'high' };
  timeoutMs: number;
}

/** Token and image counts as the run reports them (declared by AI billing, which prices them). */
export type { Usage };

export const ZERO_USAGE: Usage = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, image_count: 0, megapixels_milli: 0 };

export interface ProviderAnswer {
  /** Text answer (TEXT and JSON agents; JSON is parsed and checked by the caller). */
  text?: string;
  image?: { bytes: Buffer };
  /** The answer stopped at `max_tokens`. */
  truncated: boolean;
  usage: Usage;
}

/** Why an attempt failed, classified for retry and routing. */
export class ProviderFailure extends Error {
  constructor(
    message: string,
    readonly details: {
      /** HTTP status of the provider's answer; 0 when none arrived. */
      httpStatus: number;
      /** Canonical status the failure maps to. */
      status: 'UNAVAILABLE' | 'DEADLINE_EXCEEDED' | 'RESOURCE_EXHAUSTED' | 'UNAUTHENTICATED' | 'PERMISSION_DENIED' | 'INVALID_ARGUMENT' | 'FAILED_PRECONDITION' | 'INTERNAL';
      retryable: boolean;
      /** The provider refused the key itself (401/403): the connection is marked INVALID. */
      keyRefused?: boolean;
      /** From `Retry-After` (or `retry-after-ms`). */
      retryAfterMs?: number;
      reason?: string;
      usage?: Usage;
    },
  ) {
    super(message);
  }
}

/** One provider's wire protocol, through its official SDK. */
export interface ProviderAdapter {
  readonly provider: Provider;
  /** Whether the platform has a key for MANAGED connections (the OpenAI-compatible server may need none). */
  readonly managedKey: string | undefined;
  readonly managedAvailable: boolean;
  /** Asks the provider about the key at no token cost (lists models). VALID/INVALID, or throws Unavailable. */
  verify(apiKey: string): Promise<'VALID' | 'INVALID'>;
  run(request: ProviderRequest): Promise<ProviderAnswer>;
}

/** Milliseconds to wait from a `Retry-After` / `retry-after-ms` header, if present and sane. */
export function retryAfterMs(headers: Headers | undefined): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers.get('retry-after');
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : undefined;
}

/**
 * Maps an SDK error (both SDKs share the Stainless error classes' shape) to a ProviderFailure:
 * no answer or a timeout, 408/409/429/5xx are retryable; 401/403 refuse the key; other 4xx are final.
 */
/** The error classes of one SDK (both SDKs share the Stainless shape). */
export interface SdkErrorClasses {
  connection: Function;
  timeout: Function;
  api: Function;
}

export function classifySdkError(err: unknown, names: SdkErrorClasses): ProviderFailure {
  if (err instanceof names.timeout) return new ProviderFailure('the provider did not answer within the timeout', { httpStatus: 0, status: 'DEADLINE_EXCEEDED', retryable: true });
  if (err instanceof names.connection) return new ProviderFailure(`the provider could not be reached: ${(err as Error).message}`, { httpStatus: 0, status: 'UNAVAILABLE', retryable: true });
  if (err instanceof names.api) {
    const status = Number((err as { status?: number }).status ?? 0);
    const headers = (err as { headers?: Headers }).headers;
    const message = `provider answered ${status}: ${(err as Error).message}`.slice(0, 1000);
    if (status === 401) return new ProviderFailure(message, { httpStatus: status, status: 'UNAUTHENTICATED', retryable: false, keyRefused: true, reason: 'PROVIDER_KEY_REFUSED' });
    if (status === 403) return new ProviderFailure(message, { httpStatus: status, status: 'PERMISSION_DENIED', retryable: false, keyRefused: true, reason: 'PROVIDER_KEY_REFUSED' });
    if (status === 429) return new ProviderFailure(message, { httpStatus: status, status: 'RESOURCE_EXHAUSTED', retryable: true, retryAfterMs: retryAfterMs(headers) });
    if (status === 408 || status === 409 || status >= 500 || status === 0) {
      return new ProviderFailure(message, { httpStatus: status, status: 'UNAVAILABLE', retryable: true, retryAfterMs: retryAfterMs(headers) });
    }
    return new ProviderFailure(message, { httpStatus: status, status: 'INVALID_ARGUMENT', retryable: false, reason: 'PROVIDER_REFUSED_REQUEST' });
  }
  return new ProviderFailure(`provider call failed: ${(err as Error)?.message ?? String(err)}`, { httpStatus: 0, status: 'INTERNAL', retryable: false });
}

/**
 * The key check of `:verify`: a call that costs no tokens (listing models). A refused key is
 * INVALID; any other failure means the provider could not be asked (UNAVAILABLE, nothing changes).
 */
export async function verifyByListingModels(provider: string, listModels: () => Promise<unknown>, sdkErrors: SdkErrorClasses): Promise<'VALID' | 'INVALID'> {
  try {
    await listModels();
    return 'VALID';
  } catch (err) {
    const failure = classifySdkError(err, sdkErrors);
    if (failure.details.keyRefused) return 'INVALID';
    throw new Unavailable(`${provider} could not be asked about the key: ${failure.message}`, 'PROVIDER_UNAVAILABLE');
  }
}
