import type { Context } from 'koa';
import multer from '@koa/multer';
import { sniffImageType } from '../../integrations/id-card/image-check';
import { HttpError, problems } from './problems';
import type { MultipartSpec, UploadedFile } from './route-table';

export const isMultipart = (ctx: Context): boolean => ctx.is('multipart/form-data') === 'multipart/form-data';

/** Parses a multipart form holding one file (kept in memory, bounded by spec.file.maxBytes) and text fields. */
export async function parseMultipart(
  ctx: Context,
  spec: MultipartSpec,
): Promise<{ fields: Record<string, unknown>; file?: UploadedFile }> {
  const upload = multer({
    storage: multer.memoryStorage(),
    limits: { fileSize: spec.file.maxBytes, files: 1, fields: 10, fieldSize: 4096, parts: 12, headerPairs: 50 },
  }).single(spec.file.field);
  try {
    await upload(ctx as never, async () => undefined);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'LIMIT_FILE_SIZE')
      throw problems.tooLarge(`${spec.file.field} must be at most ${spec.file.maxBytes} bytes`);
    if (code === 'LIMIT_UNEXPECTED_FILE') {
      throw problems.validation([
        {
          in: 'body',
          pointer: `/${(error as { field?: string }).field ?? ''}`,
          detail: `only one file, named ${spec.file.field}, is accepted`,
        },
      ]);
    }
    if (code?.startsWith('LIMIT_')) throw problems.tooLarge(`the form exceeds a limit (${code})`);
    throw new HttpError(
      400,
      'malformed-multipart',
      'Malformed multipart body',
      'The multipart/form-data body could not be parsed',
    );
  }
  const raw = (
    ctx.request as unknown as { file?: { fieldname: string; originalname: string; size: number; buffer: Buffer } }
  ).file;
  const fields = { ...((ctx.request as unknown as { body?: Record<string, unknown> }).body ?? {}) };
  if (!raw) return { fields };
  const sniffed = sniffImageType(raw.buffer);
  if (!sniffed || !spec.file.contentTypes.includes(sniffed)) {
    throw problems.unsupportedMedia(`${spec.file.field} must be one of ${spec.file.contentTypes.join(', ')}`);
  }
  return {
    fields,
    file: {
      fieldName: raw.fieldname,
      originalName: raw.originalname,
      mimeType: sniffed,
      size: raw.size,
      buffer: raw.buffer,
    },
  };
}
