// What other folders use of the search area (plan rule 4: imports from other folders come through here).
export { searchArea } from './search.area.js';
