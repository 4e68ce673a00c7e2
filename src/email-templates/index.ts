// What other folders use of the email-templates area (plan rule 4: imports from other folders come through here).
export { emailTemplatesArea } from './email-templates.area.js';
export { enqueueWebsiteMail } from './website-mail.js';
