import { useParams } from '@tanstack/react-router';
import { CategoriesScreen } from './CategoriesScreen';

export function CategoriesPage() {
  return <CategoriesScreen />;
}

export function CategoryPage() {
  const { blogCategoryId } = useParams({ from: '/signed-in/w/$websiteId/r/blog_categories/$blogCategoryId' });
  return <CategoriesScreen categoryId={blogCategoryId} />;
}
