// The operations area's public surface: what other folders may use (plan rule 4).
export { registerOperationRoutes } from './operation.routes.js';
export { operationScope, probeOperations } from './operations.repo.js';
