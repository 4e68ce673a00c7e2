/** The tenant API's resource model and the pure logic of the generated screens (no React here). */
export * from './types.js';
export * from './schema.js';
export * from './declarations.js';
export * from './model.js';
export * from './references.js';
export * from './form.js';
export * from './errors.js';
export * from './conflict.js';
export * from './list.js';
export * from './operations.js';
