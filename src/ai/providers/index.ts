import type { Provider } from '../catalogue.js';
import { anthropicAdapter } from './anthropic.js';
import { openAiAdapter } from './openai.js';
import type { ProviderAdapter } from './provider.js';

/** Where each provider is called, and the platform's own (MANAGED) keys. */
export interface ProvidersConfig {
  openai: { baseUrl: string; apiKey: string | undefined };
  anthropic: { baseUrl: string; apiKey: string | undefined };
  /** An operator's OpenAI-compatible server (local model servers); unset: provider not offered. */
  openaiCompatible: { baseUrl: string | undefined; apiKey: string | undefined };
}

export type Providers = Partial<Record<Provider, ProviderAdapter>>;

/** Adapters of every configured provider. */
export function createProviders(config: ProvidersConfig): Providers {
  const providers: Providers = {
    openai: openAiAdapter({ provider: 'openai', baseURL: config.openai.baseUrl, managedKey: config.openai.apiKey }),
    anthropic: anthropicAdapter({ baseURL: config.anthropic.baseUrl, managedKey: config.anthropic.apiKey }),
  };
  if (config.openaiCompatible.baseUrl) {
    providers.openai_compatible = openAiAdapter({
      provider: 'openai_compatible',
      baseURL: config.openaiCompatible.baseUrl,
      managedKey: config.openaiCompatible.apiKey,
      keyOptional: true,
    });
  }
  return providers;
}
