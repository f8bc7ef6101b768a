import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { sdkCallsDoc } from './src/sdk-calls-doc.ts'

describe('docs/sdk-calls.md', () => {
  it('lists every SDK call with its arguments as the registry has them', () => {
    const committed = readFileSync(join(import.meta.dirname, '..', 'docs', 'sdk-calls.md'), 'utf8')
    expect(committed, 'regenerate: npx tsx test/src/sdk-calls-doc.ts > docs/sdk-calls.md').toBe(sdkCallsDoc())
    expect(committed).toContain('`query.budgets.get` | `read:budgets` | `month`: string')
  })
})
