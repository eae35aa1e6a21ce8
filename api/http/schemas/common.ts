// Schemas shared by several routes: paging, envelopes, the admin error body.
import { Type, type TSchema } from '@sinclair/typebox';

export const PageQuery = {
  page: Type.Optional(Type.Integer({ minimum: 1, description: 'Page number, from 1' })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Page size, 1 to 100 (default 25)' })),
};

// An id past the largest safe integer names no row (ids are JS numbers) and overflows PostgreSQL's BIGINT:
// a validation error, the same on both engines, rather than a lookup that fails.
export const IdParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });
export const StringIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const ListEnvelope = (item: TSchema, extra: Record<string, TSchema> = {}) =>
  Type.Object({
    data: Type.Array(item),
    total: Type.Integer(),
    page: Type.Integer(),
    per_page: Type.Integer(),
    ...extra,
  });

export const DataOf = (item: TSchema) => Type.Object({ data: item });

export const AdminErrorBody = Type.Object(
  {
    status_code: Type.Integer(),
    message: Type.String(),
    errors: Type.Record(Type.String(), Type.String(), { description: 'Flat strings; `code` names the error' }),
  },
  { $id: 'AdminError' },
);

export const Deleted = Type.Object({ deleted: Type.Literal(true) });

/** `<YYYY-MM-DD HH:MM:SS>` in UTC. */
export const DisplayDateTime = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$' });
export const IsoDateTime = Type.String({ format: 'date-time' });
