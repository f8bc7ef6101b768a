import type { ComponentChildren } from 'preact'
import { useState } from 'preact/hooks'

/**
 * A secret the server answers once (an API key, a webhook’s signing secret, an invitation code):
 * shown with a copy button and the words that say it will not be shown again. Nothing keeps it
 * after the screen closes.
 */
export function ShownOnce(props: { label: string; secret: string; children: ComponentChildren }) {
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null)
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.secret)
      setCopied('yes')
    } catch {
      setCopied('no')
    }
  }
  return (
    <div class="shown-once" role="status">
      <p>{props.children}</p>
      <p class="row">
        <code class="secret" data-secret={props.label}>
          {props.secret}
        </code>
        <button type="button" class="small" onClick={copy}>
          {copied === 'yes' ? 'Copied' : `Copy ${props.label.toLowerCase()}`}
        </button>
      </p>
      {copied === 'no' && (
        <p class="error">This browser did not let Hearth copy; select the text and copy it yourself.</p>
      )}
    </div>
  )
}
