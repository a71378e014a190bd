/** MIME types of knowledge files, by extension: what `create_file` is told the upload is. */
const BY_EXTENSION: Record<string, string> = {
  '.pdf': 'application/pdf',
  '.txt': 'text/plain',
  '.text': 'text/plain',
  '.md': 'text/markdown',
  '.markdown': 'text/markdown',
  '.csv': 'text/csv',
  '.tsv': 'text/tab-separated-values',
  '.json': 'application/json',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.xml': 'application/xml',
  '.rtf': 'application/rtf',
  '.doc': 'application/msword',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.xls': 'application/vnd.ms-excel',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  '.ppt': 'application/vnd.ms-powerpoint',
  '.pptx': 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  '.odt': 'application/vnd.oasis.opendocument.text',
  '.epub': 'application/epub+zip',
};

export const UNKNOWN_MIME_TYPE = 'application/octet-stream';

/** The MIME type for a file name, or `application/octet-stream` when the extension is not known. */
export function mimeTypeOf(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  if (dot < 0) return UNKNOWN_MIME_TYPE;
  return BY_EXTENSION[fileName.slice(dot).toLowerCase()] ?? UNKNOWN_MIME_TYPE;
}
