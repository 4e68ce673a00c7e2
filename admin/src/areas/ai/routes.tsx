/** AI screens of an account (agents, instructions, connections, runs) at the navigation's `r/<collection>` paths. */
import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { accountRoute } from '../../routes';
import { stringSearch } from './common';


export const aiRoutes = [
  createRoute({ getParentRoute: () => accountRoute, path: 'r/ai_agents', validateSearch: stringSearch('page_token', 'q', 'enabled'), component: lazyRouteComponent(() => import('./AgentsPage'), 'AgentsPage') }),
  createRoute({ getParentRoute: () => accountRoute, path: 'r/ai_agents/new', component: lazyRouteComponent(() => import('./AgentPage'), 'AgentPage') }),
  createRoute({ getParentRoute: () => accountRoute, path: 'r/ai_agents/$agentId', component: lazyRouteComponent(() => import('./AgentPage'), 'AgentPage') }),
  createRoute({ getParentRoute: () => accountRoute, path: 'r/ai_instructions', validateSearch: stringSearch('page_token', 'q'), component: lazyRouteComponent(() => import('./InstructionsPage'), 'InstructionsPage') }),
  createRoute({ getParentRoute: () => accountRoute, path: 'r/ai_instructions/$instructionId', component: lazyRouteComponent(() => import('./InstructionPage'), 'InstructionPage') }),
  createRoute({ getParentRoute: () => accountRoute, path: 'r/ai_connections', validateSearch: stringSearch('page_token', 'mode', 'provider'), component: lazyRouteComponent(() => import('./ConnectionsPage'), 'ConnectionsPage') }),
  createRoute({ getParentRoute: () => accountRoute, path: 'r/ai_executions', validateSearch: stringSearch('page_token', 'state', 'agent_id'), component: lazyRouteComponent(() => import('./ExecutionsPage'), 'ExecutionsPage') }),
  createRoute({ getParentRoute: () => accountRoute, path: 'r/ai_executions/$executionId', component: lazyRouteComponent(() => import('./ExecutionPage'), 'ExecutionPage') }),
] as const;
