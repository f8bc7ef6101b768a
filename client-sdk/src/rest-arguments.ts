import { invalid } from '@hearth/engine'
import { REST_PARAMETER_NAMES } from './rest-names.ts'

type Names = typeof REST_PARAMETER_NAMES

/**
 * A call's arguments, or the same with a REST path parameter's name in place of the argument it
 * fills (`yearMonth` for `month`, `ruleId` for `id`): `Input` for `budgets.get` is also satisfied
 * by `{yearMonth}`.
 */
export type WithRestNames<Name extends string, Input> = Name extends keyof Names
  ? Input | RestNamed<Input, Names[Name]>
  : Input

type RestNamed<Input, M> = Input extends object
  ? Omit<Input, M[keyof M] & keyof Input> & {
      [K in keyof M as M[K] extends keyof Input ? K : never]: Input[M[K] & keyof Input]
    }
  : Input

/**
 * Renames the REST path parameter names in a call's arguments to the arguments they fill, so
 * `query.budgets.get({yearMonth: '2024-05'})` is `query.budgets.get({month: '2024-05'})`. Sending
 * both names with different values is refused (400 `VALIDATION_FAILED`, naming the REST one).
 */
export function withRestNames(name: string, args: unknown): unknown {
  const names = (REST_PARAMETER_NAMES as Record<string, Record<string, string>>)[name]
  if (!names || typeof args !== 'object' || args === null || Array.isArray(args)) return args
  let out = args as Record<string, unknown>
  for (const [rest, arg] of Object.entries(names)) {
    if (!(rest in out)) continue
    const { [rest]: value, ...others } = out
    if (arg in others && others[arg] !== value) {
      throw invalid('VALIDATION_FAILED', `"${rest}" and "${arg}" name the same argument; send one of them.`, [
        { path: rest, message: `Names the same argument as "${arg}", with another value.` },
      ])
    }
    out = { ...others, [arg]: value }
  }
  return out
}
