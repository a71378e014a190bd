/**
 * A small multipart/form-data reader for the presigned upload target: enough of RFC 7578 for what
 * S3 presigned POSTs receive (text fields, then one file), with the part order kept, because S3
 * requires the file to come last.
 */

interface FormPart {
  name: string;
  contentType: string | undefined;
  data: Buffer;
}

export class MultipartError extends Error {}

/** The boundary of a multipart/form-data content-type, or undefined when it is not one. */
export function multipartBoundary(contentType: string | undefined): string | undefined {
  if (!contentType || !/^multipart\/form-data\b/i.test(contentType)) return undefined;
  const match = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return match?.[1] ?? match?.[2];
}

/** The `name` of a Content-Disposition (the last, when given twice); a `filename` is matched only to be passed over. */
function partName(disposition: string): string | undefined {
  let name: string | undefined;
  for (const match of disposition.matchAll(/;\s*(name|filename)="((?:[^"\\]|\\.)*)"/gi)) {
    if ((match[1] as string).toLowerCase() === 'name') name = (match[2] as string).replace(/\\(.)/g, '$1');
  }
  return name;
}

/** Splits a body into its parts, in order. Throws MultipartError when the body is not well formed. */
export function parseMultipart(body: Buffer, boundary: string): FormPart[] {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: FormPart[] = [];
  let position = body.indexOf(delimiter);
  if (position < 0) throw new MultipartError('no boundary found');
  for (;;) {
    position += delimiter.length;
    // `--` after a delimiter closes the body.
    if (body[position] === 0x2d && body[position + 1] === 0x2d) return parts;
    if (body[position] !== 0x0d || body[position + 1] !== 0x0a) throw new MultipartError('a boundary is not followed by a line break');
    position += 2;
    const headerEnd = body.indexOf('\r\n\r\n', position);
    if (headerEnd < 0) throw new MultipartError('a part has no end of headers');
    const headers = new Map<string, string>();
    for (const line of body.subarray(position, headerEnd).toString('utf8').split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), headerEnd + 4);
    if (next < 0) throw new MultipartError('the last part is not closed by a boundary');
    const name = partName(headers.get('content-disposition') ?? '');
    if (!name) throw new MultipartError('a part has no name');
    parts.push({ name, contentType: headers.get('content-type'), data: body.subarray(headerEnd + 4, next) });
    position = next + 2;
  }
}
