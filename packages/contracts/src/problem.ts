import { z } from 'zod'

/** An RFC 9457 problem body; `code` is the stable, documented identifier clients branch on. */
export const ProblemSchema = z
  .object({
    type: z.string().describe('A URI naming the problem type.'),
    title: z.string(),
    status: z.number().int(),
    code: z.string().describe('Stable UPPER_SNAKE error code.'),
    detail: z.string().optional(),
    instance: z.string().optional(),
    requestId: z.string().optional(),
    errors: z
      .array(z.object({ path: z.string(), message: z.string(), code: z.string().optional() }))
      .optional()
      .describe('Field problems, one entry per invalid or unknown field.'),
  })
  .catchall(z.unknown())
  .meta({ id: 'Problem' })

export type Problem = z.infer<typeof ProblemSchema>
