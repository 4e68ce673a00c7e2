/** Path templates of a declaration: `websites/{website_id}/cms_pages/{cms_page_id}`. */

/** The `{param}` names of a template, in order. */
export function templateParams(template: string): string[] {
  return [...template.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]);
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

/** Fills a template from a row: the last parameter is the row's own `id`, the others its columns. */
export function fillTemplate(template: string, row: Record<string, unknown>, ownIdLast = true): string {
  const params = templateParams(template);
  return template.replace(/\{([a-z_]+)\}/g, (_, p: string) =>
    String(ownIdLast && p === params[params.length - 1] ? row.id : row[p]),
  );
}

/** Fills a template from path parameters. */
export function fillFromParams(template: string, params: Record<string, string>): string {
  return template.replace(/\{([a-z_]+)\}/g, (_, p: string) => params[p]);
}
