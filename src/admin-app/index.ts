// What other folders use of the admin app's serving (plan rule 4: imports from other folders come through here).
export { previewOrigins, registerAdminApp } from './admin-app.js';
