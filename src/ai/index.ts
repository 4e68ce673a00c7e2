// The AI area's public surface: what other folders may use.
export { aiArea, aiContext } from './ai.area.js';
export { AI_EXECUTION } from './execution.resource.js';
export { registerRunFollowUp } from './follow-ups.js';
export { placeholdersOf } from './template.js';
export { agentExists, agentInstruction, executionExists, findExecution, findInstructionVersionContent, instructionActiveVersion } from './ai.repo.js';
