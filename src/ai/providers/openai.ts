import type OpenAI from 'openai';
import type { Provider } from '../catalogue.js';
import { classifySdkError, verifyByListingModels, type ProviderAdapter, type ProviderAnswer, type ProviderRequest, type SdkErrorClasses } from './provider.js';

// The SDK is loaded on first use: its module graph is some 20 MB of a server that may never call it
// (idle RSS, issue 24). Its error classes are known once it is; nothing can fail with them before.
class NotLoaded {}
const SDK_ERRORS: SdkErrorClasses = { connection: NotLoaded, timeout: NotLoaded, api: NotLoaded };
let sdk: Promise<typeof OpenAI> | undefined;
const loadSdk = () =>
  (sdk ??= import('openai').then(({ default: loaded }) => {
    Object.assign(SDK_ERRORS, { connection: loaded.APIConnectionError, timeout: loaded.APIConnectionTimeoutError, api: loaded.APIError });
    return loaded;
  }));

/**
 * The OpenAI HTTP API through the official SDK (`openai`): chat completions for TEXT/JSON, image
 * generations for IMAGE, models list as the key check. Also serves OpenAI-compatible servers
 * (local model servers) under an operator-configured base URL.
 */
export function openAiAdapter(opts: { provider: Provider; baseURL: string; managedKey: string | undefined; keyOptional?: boolean }): ProviderAdapter {
  const client = async (apiKey: string, timeoutMs = 30_000) =>
    // Retries are the platform's (per-attempt records, Retry-After, routing), never the SDK's.
    new (await loadSdk())({ apiKey: apiKey || 'none', baseURL: opts.baseURL, maxRetries: 0, timeout: timeoutMs });
  return {
    provider: opts.provider,
    managedKey: opts.managedKey,
    managedAvailable: Boolean(opts.managedKey) || Boolean(opts.keyOptional),
    verify: (apiKey) => verifyByListingModels(opts.provider, async () => (await client(apiKey)).models.list(), SDK_ERRORS),
    async run(request: ProviderRequest): Promise<ProviderAnswer> {
      try {
        const sdk = await client(request.apiKey, request.timeoutMs);
        if (request.outputFormat === 'IMAGE') {
          const { width, height } = request.image!;
          const answer = await sdk.images.generate({
            model: request.model,
            prompt: request.user,
            n: 1,
            // The SDK lists the sizes it knows; the model's own limits decide (the provider refuses others).
            size: `${width}x${height}` as OpenAI.Images.ImageGenerateParams['size'],
            ...(request.image?.quality && { quality: request.image.quality }),
          });
          const b64 = answer.data?.[0]?.b64_json;
          if (!b64) throw new Error('the provider answered no image data');
          return {
            image: { bytes: Buffer.from(b64, 'base64') },
            truncated: false,
            usage: {
              input_tokens: answer.usage?.input_tokens ?? 0,
              output_tokens: answer.usage?.output_tokens ?? 0,
              cache_read_input_tokens: 0,
              cache_creation_input_tokens: 0,
              image_count: 1,
              megapixels_milli: Math.round((width * height) / 1000),
            },
          };
        }
        const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [];
        if (request.system !== undefined) messages.push({ role: 'system', content: request.system });
        messages.push({ role: 'user', content: request.user });
        const completion = await sdk.chat.completions.create({
          model: request.model,
          messages,
          max_completion_tokens: request.maxTokens,
          ...(request.effort && { reasoning_effort: request.effort }),
          ...(request.outputFormat === 'JSON' && {
            // Not strict: a tenant's schema need not meet strict mode's subset; the answer is validated here.
            response_format: { type: 'json_schema', json_schema: { name: 'output', schema: request.outputSchema ?? {}, strict: false } },
          }),
        });
        const choice = completion.choices[0];
        const cached = completion.usage?.prompt_tokens_details?.cached_tokens ?? 0;
        return {
          text: choice?.message?.content ?? '',
          truncated: choice?.finish_reason === 'length',
          usage: {
            // OpenAI counts cached tokens inside prompt_tokens; here they are reported apart (priced apart).
            input_tokens: Math.max(0, (completion.usage?.prompt_tokens ?? 0) - cached),
            output_tokens: completion.usage?.completion_tokens ?? 0,
            cache_read_input_tokens: cached,
            cache_creation_input_tokens: 0,
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
