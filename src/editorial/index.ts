// Editorial's public surface: what other folders may use.
export { editorialArea } from './editorial.area.js';
