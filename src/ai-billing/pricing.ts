// What AI billing prices: a model's prices and a run's metered usage. Declared here, where billing
// owns them, so the AI area (whose catalogue and provider adapters fill them) depends on billing and
// billing never on the AI area.

/** Prices of a model in nano-dollars: tokens per million, images per megapixel or per image. */
export interface ModelPrices {
  input_per_million?: number;
  output_per_million?: number;
  cached_input_per_million?: number;
  cache_write_per_million?: number;
  image_per_megapixel?: number;
  per_image?: number;
}

/** Token and image counts as the run reports them. */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  image_count: number;
  megapixels_milli: number;
}
