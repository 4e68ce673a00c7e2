import { createHash } from 'node:crypto';
import { customDomainWriteHook } from '../custom-domain/index.js';
import type { Area, AreaDeps } from '../platform/area.js';
import { NotFound } from '../platform/errors.js';
import type { CustomMethodDecl, ResourceDecl } from '../platform/resource/declaration.js';
import { resourceSchema } from '../platform/resource/schemas.js';
import { CUSTOM_DOMAIN_PATH, descriptorOf, SETTING_DESCRIPTORS, SITE_NAME_PATH, type SettingDescriptor } from './setting-registry.js';
import { settingDescriptorResource, viewSettingResource, websiteSettingResource } from './settings.resource.js';
import { insertSettingOnce } from './settings.repo.js';
import { createSettingsService, MAX_BATCH_WRITES, viewSettingsReference } from './settings.service.js';

/** A descriptor as the catalogue shows it; the etag changes when a release changes the descriptor. */
function presentDescriptor(d: SettingDescriptor): Record<string, unknown> {
  const resource: Record<string, unknown> = { name: `setting_descriptors/${d.path}`, id: d.path, ...d };
  if (!d.allowed_values) resource.allowed_values = [];
  resource.etag = createHash('sha256').update(JSON.stringify(d)).digest('base64url').slice(0, 16);
  return resource;
}

function batchUpdateMethod(decl: ResourceDecl, run: ReturnType<typeof createSettingsService>['batchUpdate']): CustomMethodDecl {
  return {
    verb: 'batch_update',
    on: 'collection',
    access: 'write',
    summary: 'Write several settings atomically',
    description:
      `Writes up to ${MAX_BATCH_WRITES} settings in one transaction: all land or none. Every request is checked first; each bad one is a FIELD_VIOLATION ` +
      'naming `requests[i].path` (unknown, repeated, or not view-overridable in a view) or `requests[i].value`, and nothing is written. ' +
      '`value: null` returns a setting to its inherited value. An `etag` per request makes that write conditional (409 ABORTED, nothing written). ' +
      '`validate_only: true` checks and answers without writing. Answers the written settings in request order.',
    body: {
      required: ['requests'],
      properties: {
        requests: {
          type: 'array',
          minItems: 1,
          maxItems: MAX_BATCH_WRITES,
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['path', 'value'],
            properties: {
              path: { type: 'string', maxLength: 128, description: 'Dotted path of the setting.' },
              value: { description: 'New value as the descriptor types it (string, number, boolean or array of strings); null returns to the inherited value.' },
              etag: { type: 'string', maxLength: 128, description: 'Write only if the setting still has this etag.' },
            },
          },
        },
        validate_only: { type: 'boolean', description: 'Check everything, write nothing.' },
      },
    },
    response: {
      type: 'object',
      title: `BatchUpdate${decl.singular}sResponse`,
      properties: { settings: { type: 'array', maxItems: MAX_BATCH_WRITES, items: resourceSchema(decl), description: 'The written settings, in request order.' } },
      required: ['settings'],
    },
    // The body schema above validated the shape `run` takes.
    handle: (ctx, call) => run(ctx, call.params, call.body as Parameters<typeof run>[2]),
  };
}

/** The declaration with its `:batch_update`, whose answer lists the resource as the declaration shows it. */
const withBatchUpdate = (decl: ResourceDecl, run: ReturnType<typeof createSettingsService>['batchUpdate']): ResourceDecl => ({
  ...decl,
  customMethods: [batchUpdateMethod(decl, run)],
});

/**
 * Settings: the `setting_descriptors` catalogue, website settings by dotted path and per-view
 * overrides, each with `:batch_update`. Provisioning stores the website's name as `general.site.name`.
 */
export const settingsArea: Area = {
  name: 'settings',
  resources(deps: AreaDeps) {
    const settings = createSettingsService({
      database: deps.database,
      platformDomain: deps.config.platformDomain,
      writeHooks: { [CUSTOM_DOMAIN_PATH]: customDomainWriteHook(deps.database.dialect) },
    });
    return [
      {
        ...settingDescriptorResource,
        virtual: {
          all: async () => SETTING_DESCRIPTORS.map(presentDescriptor),
          async get(_ctx, params) {
            const d = descriptorOf(params.setting_descriptor_id);
            if (!d) throw new NotFound(`setting descriptor ${params.setting_descriptor_id}`);
            return presentDescriptor(d);
          },
        },
      },
      withBatchUpdate({ ...websiteSettingResource, virtual: settings.source }, settings.batchUpdate),
      withBatchUpdate({ ...viewSettingResource, virtual: settings.source }, settings.batchUpdate),
    ];
  },
  provisioningSteps: () => [
    {
      name: 'DEFAULT_SETTINGS',
      // Settings whose default depends on the website; everything else answers the registry default.
      async run(db, website) {
        await insertSettingOnce(db, { websiteId: website.id, accountId: website.account_id, path: SITE_NAME_PATH, value: JSON.stringify({ v: website.display_name }), now: Date.now() });
      },
    },
  ],
  references: [viewSettingsReference],
};
