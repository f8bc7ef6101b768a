import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import type { z } from 'zod'
import type { MutationContext } from '../mutator/context.ts'
import { EVENT_SCHEMAS, EVENT_TYPES, isEventType } from './catalog.ts'

const engineSrc = join(dirname(fileURLToPath(import.meta.url)), '..')
const eventsDoc = readFileSync(join(engineSrc, '../../../docs/events.md'), 'utf8')

/** Types declared for a domain that does not emit them yet; each leaves this list when it does. */
const DECLARED_AHEAD: string[] = []

/** Every `ctx.emit('type', …)` in the engine's source, test files aside. */
function emittedTypes(): Set<string> {
  const found = new Set<string>()
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) {
        for (const m of readFileSync(path, 'utf8').matchAll(/\bctx\.emit\(\s*['"`]([^'"`]+)['"`]/g)) {
          found.add(m[1]!)
        }
      }
    }
  }
  walk(engineSrc)
  return found
}

/** The docs section of one type: from its heading to the next. */
function docSection(type: string): string | undefined {
  const start = eventsDoc.indexOf(`### \`${type}\`\n`)
  if (start < 0) return undefined
  const next = eventsDoc.indexOf('\n### ', start + 1)
  return eventsDoc.slice(start, next < 0 ? undefined : next)
}

/** Never called: `npm run typecheck` fails if `emit` accepts what the catalog does not. */
export function emitIsTyped(ctx: MutationContext): void {
  ctx.emit('tag.deleted', { id: 'a tag' })
  // @ts-expect-error a type outside the catalog (the old snake_case name)
  ctx.emit('category_group.created', { categoryGroup: {} })
  // @ts-expect-error a payload without the field its type requires
  ctx.emit('tag.deleted', { tagId: 'a tag' })
  // @ts-expect-error cents as a number where the catalog says a decimal string
  ctx.emit('budget.overrun', { householdId: 'h', month: '2024-03', categoryId: 'c', availableCents: -1 })
}

describe('event catalog', () => {
  it('names every type as noun.verb with a camelCase noun', () => {
    for (const type of EVENT_TYPES) expect(type).toMatch(/^[a-z][a-zA-Z]*\.[a-z][a-zA-Z]*$/)
  })

  it('holds every type the engine emits, and emits every type it holds but those declared ahead', () => {
    const emitted = emittedTypes()
    expect(emitted.size).toBeGreaterThan(20)
    expect([...emitted].filter((t) => !isEventType(t))).toEqual([])
    expect(EVENT_TYPES.filter((t) => !emitted.has(t))).toEqual(DECLARED_AHEAD)
  })

  it('is documented in docs/events.md, type by type and field by field', () => {
    for (const type of EVENT_TYPES) {
      const section = docSection(type)
      expect(section, `docs/events.md has no section for ${type}`).toBeDefined()
      const fields = Object.keys((EVENT_SCHEMAS[type] as z.ZodObject).shape)
      for (const field of fields) expect(section, `${type}: ${field}`).toContain(`- \`${field}\``)
    }
    const documented = [...eventsDoc.matchAll(/^### `([^`]+)`$/gm)].map((m) => m[1])
    expect(documented).toEqual(EVENT_TYPES)
  })

  it('refuses a payload that misses a field or gives cents as a number', () => {
    expect(EVENT_SCHEMAS['tag.deleted'].safeParse({}).success).toBe(false)
    const overrun = { householdId: 'h', month: '2024-03', categoryId: 'c', availableCents: '-1250' }
    expect(EVENT_SCHEMAS['budget.overrun'].safeParse(overrun).success).toBe(true)
    expect(EVENT_SCHEMAS['budget.overrun'].safeParse({ ...overrun, availableCents: -1250 }).success).toBe(
      false,
    )
    expect(EVENT_SCHEMAS['budget.overrun'].safeParse({ ...overrun, month: '2024-13' }).success).toBe(false)
  })
})
