// The signup area's public surface: what other folders may use (plan rule 4).
export { createSignupService } from './signup.service.js';
export type { SignupService, SignUpInput } from './signup.service.js';
export { registerSignupRoutes } from './signup.routes.js';
export { exchangeSignupHandoff } from './signup.repo.js';
