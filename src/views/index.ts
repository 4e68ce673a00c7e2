export { viewsArea } from './views.area.js';
export { isViewOf, MAX_VIEWS_PER_WEBSITE, viewsInCreationOrder, withViewChain } from './views.repo.js';
