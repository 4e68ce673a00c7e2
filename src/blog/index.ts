// What other folders use of the blog area (plan rule 4: imports from other folders come through here).
export { blogArea } from './blog.area.js';
export { BLOG_RESOLVER_SPECS } from './blog-overlaid.js';
export { htmlToText } from './blog-text.js';
export { countPosts, livePostByUrlKey, postIdsAfter, postIdsQuery, postUrlKeys } from './blog.repo.js';
export { createPublishedPosts, postPathOf } from './published-posts.js';
export type { PublishedPost, PublishedPosts } from './published-posts.js';
export { findPostRow, postRevisionOf } from './blog.repo.js';
