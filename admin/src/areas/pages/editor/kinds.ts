/**
 * What differs between the content the editors write: pages, blocks and blog posts. Each has a
 * collection, an overlay per view (`…/{id}/views/{view_id}`, PATCH `?allow_missing=true`), a
 * `:resolve` that reads it as a view sees it, and the fields a view may override.
 */
import type { TenantPaths } from '@siteplatform/sdk';

export interface ContentKind {
  collection: 'cms_pages' | 'cms_blocks' | 'blog_posts';
  idParam: 'cms_page_id' | 'cms_block_id' | 'blog_post_id';
  noun: string;
  section: string;
  item: keyof TenantPaths;
  overlay: keyof TenantPaths;
  overlays: keyof TenantPaths;
  resolve: keyof TenantPaths;
  /** Fields a view may override (the overlay's `overridden` names). */
  overridable: readonly string[];
  richText: readonly string[];
  labels: Record<string, string>;
}

export const PAGE_KIND: ContentKind = {
  collection: 'cms_pages',
  idParam: 'cms_page_id',
  noun: 'page',
  section: 'website.content',
  item: '/tenant-api/v1/websites/{website_id}/cms_pages/{cms_page_id}',
  overlay: '/tenant-api/v1/websites/{website_id}/cms_pages/{cms_page_id}/views/{view_id}',
  overlays: '/tenant-api/v1/websites/{website_id}/cms_pages/{cms_page_id}/views',
  resolve: '/tenant-api/v1/websites/{website_id}/cms_pages/{cms_page_id}:resolve',
  overridable: ['title', 'content_heading', 'content', 'meta_title', 'meta_description', 'meta_keywords'],
  richText: ['content'],
  labels: {
    title: 'Title',
    url_key: 'URL key',
    content_heading: 'Content heading',
    content: 'Content',
    meta_title: 'Meta title',
    meta_description: 'Meta description',
    meta_keywords: 'Meta keywords',
    meta_robots: 'Search engines',
    visible_view_ids: 'Visible in views',
    is_active: 'Active',
  },
};

export const BLOCK_KIND: ContentKind = {
  collection: 'cms_blocks',
  idParam: 'cms_block_id',
  noun: 'block',
  section: 'website.content',
  item: '/tenant-api/v1/websites/{website_id}/cms_blocks/{cms_block_id}',
  overlay: '/tenant-api/v1/websites/{website_id}/cms_blocks/{cms_block_id}/views/{view_id}',
  overlays: '/tenant-api/v1/websites/{website_id}/cms_blocks/{cms_block_id}/views',
  resolve: '/tenant-api/v1/websites/{website_id}/cms_blocks/{cms_block_id}:resolve',
  overridable: ['title', 'content'],
  richText: ['content'],
  labels: { title: 'Title', identifier: 'Identifier', content: 'Content', visible_view_ids: 'Visible in views', is_active: 'Active' },
};

export const POST_KIND: ContentKind = {
  collection: 'blog_posts',
  idParam: 'blog_post_id',
  noun: 'post',
  section: 'website.blog',
  item: '/tenant-api/v1/websites/{website_id}/blog_posts/{blog_post_id}',
  overlay: '/tenant-api/v1/websites/{website_id}/blog_posts/{blog_post_id}/views/{view_id}',
  overlays: '/tenant-api/v1/websites/{website_id}/blog_posts/{blog_post_id}/views',
  resolve: '/tenant-api/v1/websites/{website_id}/blog_posts/{blog_post_id}:resolve',
  overridable: ['title', 'custom_excerpt', 'content', 'feature_image_alt', 'meta_title', 'meta_description', 'og_title', 'og_description'],
  richText: ['content', 'custom_excerpt'],
  labels: {
    title: 'Title',
    url_key: 'URL key',
    custom_excerpt: 'Excerpt',
    content: 'Content',
    feature_image_media_id: 'Feature image',
    feature_image_alt: 'Feature image alt text',
    meta_title: 'Meta title',
    meta_description: 'Meta description',
    og_title: 'Social title',
    og_description: 'Social description',
    og_image_media_id: 'Social image',
    canonical_url: 'Canonical URL',
    author_ids: 'Authors',
    category_ids: 'Categories',
    tag_ids: 'Tags',
    visible_view_ids: 'Visible in views',
  },
};
