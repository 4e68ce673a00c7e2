// What other folders use of the blog area (plan rule 4: imports from other folders come through here).
export { findPostRow, postRevisionOf } from './blog.repo.js';
