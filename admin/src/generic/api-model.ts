/**
 * The tenant API's resource model, built once from the committed OpenAPI document. The document is
 * imported at build time into the generic screens' own chunk (routes are split), so the first
 * screen does not carry it.
 */
import doc from '../../../docs/openapi/tenant-api.json';
import { buildApiModel } from '../lib/openapi-model/model.js';
import type { ApiModel, OpenApiDocument } from '../lib/openapi-model/types.js';

let model: ApiModel | undefined;

/** The model (built on first use). */
export const apiModel = (): ApiModel => (model ??= buildApiModel(doc as unknown as OpenApiDocument));
