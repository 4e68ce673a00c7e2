import type { Area, AreaDeps } from '../platform/area.js';
import type { ResourceService } from '../platform/resource/engine.js';
import { mediaFolderResource } from './media-folder.resource.js';
import { mediaResource } from './media.resource.js';
import { registerMediaPublicRoute, registerMediaUploadRoute } from './media.routes.js';
import { createMediaService, type MediaService } from './media.service.js';

/** The public surface's prefix (`ENGINE_PREFIX` in app.ts, not imported: app.ts imports the areas). */
export const ENGINE_PREFIX = '/engine-api/v1';

/** One media service per built platform (the routes of both surfaces share its transform slots). */
const servicesOf = new WeakMap<AreaDeps['services'], MediaService>();

/** Absolute URL of the public read of a media, the filename last (readable URLs). */
const publicUrlOf =
  (deps: AreaDeps) =>
  (websiteId: string, mediaId: string, filename: string): string =>
    `${deps.config.publicBaseUrl}${ENGINE_PREFIX}/websites/${websiteId}/media/${mediaId}/${filename}`;

function mediaServiceOf(deps: AreaDeps): MediaService {
  let service = servicesOf.get(deps.services);
  if (!service) {
    service = createMediaService({
      database: deps.database,
      blobs: deps.blobs,
      limits: deps.config.media,
      // A token bucket: a page's burst of first views passes at once, a sustained stream gets the rate.
      coldTransforms: deps.limits.limiter('media_cold_transforms', { limit: deps.config.media.coldTransformsPerMinute, windowMs: 60_000, algorithm: 'token-bucket' }),
      signingSecret: deps.config.mediaSigningSecret,
      publicUrl: publicUrlOf(deps),
      logger: deps.logger,
      media: () => deps.services['websites/{website_id}/media'],
    });
    servicesOf.set(deps.services, service);
  }
  return service;
}

/** Blob removal after a delete committed: a failure leaves orphaned bytes (logged), never a broken row. */
function blobRemover(deps: AreaDeps) {
  return async (prefix: string) => {
    try {
      await deps.blobs.deletePrefix(prefix);
    } catch (err) {
      deps.logger.error({ err, prefix }, 'could not remove the blobs of a deleted media');
    }
  };
}

/** Media: the library (`media`), its folders (`media_folders`), the upload and the public transformed read. */
export const mediaArea: Area = {
  name: 'media',
  resources: (deps) => [
    mediaResource({
      deleteBlobs: blobRemover(deps),
      publicUrl: publicUrlOf(deps),
      signTransform: (ctx, params, body) => mediaServiceOf(deps).signTransform(ctx, params, body),
    }),
    mediaFolderResource({ deleteBlobs: blobRemover(deps) }),
  ],
  tenantRoutes: (app, deps) =>
    registerMediaUploadRoute(app, {
      ...deps,
      media: mediaServiceOf(deps),
      mediaResource: (): ResourceService => deps.services['websites/{website_id}/media'],
      maxUploadBytes: deps.config.media.maxUploadBytes,
    }),
  engineRoutes: (app, deps) => registerMediaPublicRoute(app, { ...deps, media: mediaServiceOf(deps) }),
};
