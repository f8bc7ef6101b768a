import type { RefObject } from 'preact'
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks'
import {
  type RowRange,
  rowHeights,
  rowOffsets,
  rowsCovering,
  stillCovers,
  type WindowPart,
  windowParts,
} from './window.ts'

/** Rows rendered beyond each edge of the viewport, in px, so a scroll finds them there already. */
const OVERSCAN = 900
/** While the rows rendered reach this far past the viewport, a scroll renders nothing new. */
const MARGIN = 300
/** A row's height before any has been measured (one line of a desktop register). */
const FIRST_ESTIMATE = 41
/** Rows rendered before the first measure, enough for a tall screen. */
const FIRST_ROWS = 40

/**
 * The register's window (`window.ts`) over the rows named by `keys`, for the table body `body`
 * whose rows carry `data-key`: which rows to render and the spacers between them. It follows the
 * page's scroll (of the document or any element around the table), the viewport's size, and each
 * rendered row's height as measured (a ResizeObserver: an editor that grows, a card that wraps).
 * `pinned` rows are rendered wherever they are.
 */
export function useRowWindow(
  keys: readonly string[],
  body: RefObject<HTMLElement | null>,
  pinned: readonly number[],
): WindowPart[] {
  const measured = useRef(new Map<string, number>())
  const [measures, setMeasures] = useState(0)
  const heights = useMemo(() => rowHeights(keys, measured.current, FIRST_ESTIMATE), [keys, measures])
  const offsets = useMemo(() => rowOffsets(heights), [heights])
  const [range, setRange] = useState<RowRange>({ first: 0, end: Math.min(keys.length, FIRST_ROWS) })

  // The scroll listener reads the latest offsets and range without subscribing again each render.
  const latest = useRef({ offsets, range })
  latest.current = { offsets, range }
  const follow = useRef(() => {})
  follow.current = () => {
    const element = body.current
    if (!element) return
    const top = -element.getBoundingClientRect().top
    const viewport = window.innerHeight
    const { offsets, range } = latest.current
    if (stillCovers(offsets, range, top, viewport, MARGIN)) return
    const next = rowsCovering(offsets, top, viewport, OVERSCAN)
    if (next.first !== range.first || next.end !== range.end) setRange(next)
  }
  useLayoutEffect(() => follow.current(), [offsets])

  useEffect(() => {
    const onScroll = () => follow.current()
    let width = body.current?.getBoundingClientRect().width ?? 0
    const onResize = () => {
      // Rows measured at another width (a table row then, a card now) no longer tell their height.
      const now = body.current?.getBoundingClientRect().width ?? 0
      if (Math.abs(now - width) > 1) {
        width = now
        measured.current.clear()
        setMeasures((n) => n + 1)
      }
      follow.current()
    }
    // Capture: a scroll does not bubble, and the register may sit in a scrolling element.
    document.addEventListener('scroll', onScroll, { capture: true, passive: true })
    window.addEventListener('resize', onResize, { passive: true })
    return () => {
      document.removeEventListener('scroll', onScroll, { capture: true })
      window.removeEventListener('resize', onResize)
    }
  }, [])

  // Each rendered row's height, when first rendered and whenever it changes.
  const observer = useRef<ResizeObserver | null>(null)
  const observed = useRef(new Set<Element>())
  useEffect(() => () => observer.current?.disconnect(), [])
  useLayoutEffect(() => {
    const element = body.current
    if (!element) return
    observer.current ??= new ResizeObserver((entries) => {
      let changed = false
      for (const entry of entries) {
        const row = entry.target as HTMLElement
        const key = row.dataset.key
        if (!key || !row.isConnected) continue
        const height = row.getBoundingClientRect().height
        if (Math.abs((measured.current.get(key) ?? -1) - height) > 0.5) {
          measured.current.set(key, height)
          changed = true
        }
      }
      if (changed) setMeasures((n) => n + 1)
    })
    for (const row of observed.current)
      if (!row.isConnected) {
        observer.current.unobserve(row)
        observed.current.delete(row)
      }
    for (const row of element.querySelectorAll(':scope > tr[data-key]'))
      if (!observed.current.has(row)) {
        observer.current.observe(row)
        observed.current.add(row)
      }
  })

  return windowParts(offsets, range, pinned)
}
