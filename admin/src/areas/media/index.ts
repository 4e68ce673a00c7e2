/** What other areas use of the media library: the image picker and a media field for forms. */
export { ImagePicker, MediaField } from './ImagePicker';
export { uploadMedia, formatBytes } from './upload';
export { thumbnailUrl, type Media, type MediaFolder } from './media-query';
