import { useEffect, useRef, useState } from 'preact/hooks'
import { centsToInput, parseCents } from '../format.ts'

/**
 * An amount edited in place: Enter (or leaving the field) saves when the value changed, Escape
 * puts the saved value back. Arrow up and down move to the same field in the row above or below.
 */
export function MoneyInput(props: {
  cents: string
  label: string
  onSave: (cents: bigint) => Promise<unknown> | undefined
  class?: string
  name?: string
}) {
  const [text, setText] = useState(centsToInput(props.cents))
  const [invalid, setInvalid] = useState(false)
  const focused = useRef(false)
  // Typed into since it was focused or saved: a new saved amount (an undo) then waits for the blur.
  const typed = useRef(false)
  // The amount last saved and not yet read back: Enter then leaving the field saves it once.
  const pending = useRef<bigint | null>(null)
  useEffect(() => {
    pending.current = null
    if (!focused.current || !typed.current) setText(centsToInput(props.cents))
  }, [props.cents])
  const save = () => {
    const cents = parseCents(text)
    if (cents === null) {
      setInvalid(true)
      return
    }
    setInvalid(false)
    typed.current = false
    if (cents !== BigInt(props.cents) && cents !== pending.current) {
      pending.current = cents
      void props.onSave(cents)
    }
    setText(centsToInput(cents))
  }
  return (
    <input
      class={`money-input ${props.class ?? ''}`}
      inputMode="decimal"
      name={props.name}
      aria-label={props.label}
      aria-invalid={invalid || undefined}
      value={text}
      onFocus={(e) => {
        focused.current = true
        typed.current = false
        e.currentTarget.select()
      }}
      onBlur={() => {
        focused.current = false
        save()
      }}
      onInput={(e) => {
        typed.current = true
        setText(e.currentTarget.value)
      }}
      onKeyDown={(e) => {
        if (e.key === 'Enter') {
          e.preventDefault()
          save()
        } else if (e.key === 'Escape') {
          typed.current = false
          setText(centsToInput(props.cents))
          setInvalid(false)
        } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
          e.preventDefault()
          moveFocus(e.currentTarget, e.key === 'ArrowDown' ? 1 : -1)
        }
      }}
    />
  )
}

/** Focuses the same kind of field (by its `name`) in the next or previous row. */
export function moveFocus(from: HTMLElement, step: 1 | -1): void {
  const name = from.getAttribute('name')
  if (!name) return
  const all = [...document.querySelectorAll<HTMLElement>(`[name="${name}"]`)]
  const next = all[all.indexOf(from) + step]
  next?.focus()
}
