import type { RefObject } from 'preact'
import { useEffect } from 'preact/hooks'

/**
 * On a narrow screen a wide table scrolls sideways inside its own box (styles.css); a box that
 * scrolls must be reachable by keyboard to be scrolled by it. Every table under `root` that
 * scrolls and holds nothing focusable gets `tabindex="0"` (and loses it when it no longer
 * scrolls), checked once a frame after the screen or its text changes or the window is resized.
 */
export function useScrollableTablesFocusable(root: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    const element = root.current
    if (!element) return
    let queued = 0
    const check = () => {
      queued = 0
      for (const table of element.querySelectorAll('table')) {
        const scrolls = table.scrollWidth > table.clientWidth + 1
        const focusable = table.querySelector('a[href], button, input, select, textarea, [tabindex]')
        if (scrolls && !focusable) table.setAttribute('tabindex', '0')
        else if (!scrolls && table.getAttribute('tabindex') === '0') table.removeAttribute('tabindex')
      }
    }
    const later = () => {
      queued ||= requestAnimationFrame(check)
    }
    const observer = new MutationObserver(later)
    // Text that changes in place (figures arriving in rows already drawn) widens a table too.
    observer.observe(element, { childList: true, characterData: true, subtree: true })
    addEventListener('resize', later)
    later()
    return () => {
      observer.disconnect()
      removeEventListener('resize', later)
      cancelAnimationFrame(queued)
    }
  }, [root])
}
