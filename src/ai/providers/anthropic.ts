import type Anthropic from '@anthropic-ai/sdk';
import { classifySdkError, ProviderFailure, verifyByListingModels, type ProviderAdapter, type ProviderAnswer, type ProviderRequest, type SdkErrorClasses } from './provider.js';

// The SDK is loaded on first use: its module graph is some 20 MB of a server that may never call it
// (idle RSS, issue 24). Its error classes are known once it is; nothing can fail with them before.
class NotLoaded {}
const SDK_ERRORS: SdkErrorClasses = { connection: NotLoaded, timeout: NotLoaded, api: NotLoaded };
let sdk: Promise<typeof Anthropic> | undefined;
const loadSdk = () =>
  (sdk ??= import('@anthropic-ai/sdk').then(({ default: loaded }) => {
    Object.assign(SDK_ERRORS, { connection: loaded.APIConnectionError, timeout: loaded.APIConnectionTimeoutError, api: loaded.APIError });
    return loaded;
  }));

/** The Anthropic Messages API through the official SDK (`@anthropic-ai/sdk`); models list as the key check. */
export function anthropicAdapter(opts: { baseURL: string; managedKey: string | undefined }): ProviderAdapter {
  const client = async (apiKey: string, timeoutMs = 30_000) => new (await loadSdk())({ apiKey, baseURL: opts.baseURL, maxRetries: 0, timeout: timeoutMs });
  return {
    provider: 'anthropic',
    managedKey: opts.managedKey,
    managedAvailable: Boolean(opts.managedKey),
    verify: (apiKey) => verifyByListingModels('anthropic', async () => (await client(apiKey)).models.list(), SDK_ERRORS),
    async run(request: ProviderRequest): Promise<ProviderAnswer> {
      if (request.outputFormat === 'IMAGE') {
        throw new ProviderFailure('anthropic does not generate images', { httpStatus: 0, status: 'FAILED_PRECONDITION', retryable: false, reason: 'MODEL_CANNOT_RUN' });
      }
      const outputConfig: Anthropic.Messages.OutputConfig = {};
      if (request.effort) outputConfig.effort = request.effort;
      if (request.outputFormat === 'JSON') outputConfig.format = { type: 'json_schema', schema: request.outputSchema ?? {} };
      try {
        const message = await (await client(request.apiKey, request.timeoutMs)).messages.create({
          model: request.model,
          max_tokens: request.maxTokens,
          ...(request.system !== undefined && { system: request.system }),
          messages: [{ role: 'user', content: request.user }],
          ...(Object.keys(outputConfig).length && { output_config: outputConfig }),
        });
        const text = message.content
          .filter((block): block is Anthropic.Messages.TextBlock => block.type === 'text')
          .map((block) => block.text)
          .join('');
        return {
          text,
          truncated: message.stop_reason === 'max_tokens',
          usage: {
            input_tokens: message.usage.input_tokens ?? 0,
            output_tokens: message.usage.output_tokens ?? 0,
            cache_read_input_tokens: message.usage.cache_read_input_tokens ?? 0,
            cache_creation_input_tokens: message.usage.cache_creation_input_tokens ?? 0,
            image_count: 0,
            megapixels_milli: 0,
          },
        };
      } catch (err) {
        throw classifySdkError(err, SDK_ERRORS);
      }
    },
  };
}
