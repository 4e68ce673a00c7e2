/** Path templates of a declaration: `websites/{website_id}/cms_pages/{cms_page_id}`. */

const paramsCache = new Map<string, string[]>();

/** The `{param}` names of a template, in order (cached: templates are a fixed set). */
export function templateParams(template: string): string[] {
  let params = paramsCache.get(template);
  if (!params) {
    params = [...template.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]);
    paramsCache.set(template, params);
  }
  return params;
}

/**
 * Fastify's route syntax for a template (`{x}` → `:x`). A custom method `:verb` is an escaped
 * literal (`::verb`); the parameter before it is bounded by a pattern, or it would swallow the verb.
 */
export function routePath(prefix: string, template: string, verb?: string): string {
  let path = template.replace(/\{([a-z_]+)\}/g, ':$1');
  if (verb) path = path.endsWith('}') || /:[a-z_]+$/.test(path) ? `${path}(^[^:/]+)::${verb}` : `${path}::${verb}`;
  return `${prefix}/${path}`;
}

/** Fills a template from path parameters. */
export function fillFromParams(template: string, params: Record<string, string>): string {
  return template.replace(/\{([a-z_]+)\}/g, (_, p: string) => params[p]);
}
