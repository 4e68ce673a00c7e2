// What other folders use of the customers area (plan rule 4: imports from other folders come through here).
export { customersArea } from './customers.area.js';
export { customerGroupQuery, customerGroupsOfQuery } from './customers.repo.js';
