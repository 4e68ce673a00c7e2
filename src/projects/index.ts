// The projects area's public surface: what other folders may use (plan rule 4).
export { projectResource } from './project.resource.js';
export { accountHasProjects } from './projects.repo.js';
