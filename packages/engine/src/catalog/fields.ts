import { z } from 'zod'

/** The largest position a row may have: positions are 32-bit integers in the database. */
export const MAX_POSITION = 2_147_483_647

/** A display position: a non-negative 32-bit integer; lower comes first. */
export const PositionSchema = z.number().int().min(0).max(MAX_POSITION)

/** A colour as #rrggbb; stored in lower case. */
export const ColorSchema = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/, 'Must be a colour as #rrggbb.')
  .transform((c) => c.toLowerCase())

/** An id taken from a request path: any non-empty string, so a malformed one answers 404, not 400. */
export const PathIdSchema = z.string().min(1).max(64)

/** Path-only arguments: the id of the row the request is about. */
export const IdArgsSchema = z.strictObject({ id: PathIdSchema })
export type IdArgs = z.output<typeof IdArgsSchema>

/** Arguments of a read that takes none. */
export const NoArgsSchema = z.strictObject({})
