// What other folders use of the media area (plan rule 4: imports from other folders come through here).
export { readSiteImages, responsiveContentImages } from './media.site.js';
export { CONTENT_TYPE_OF, loadSharp, type OutputFormat } from './images.js';
export { mediaArea } from './media.area.js';
