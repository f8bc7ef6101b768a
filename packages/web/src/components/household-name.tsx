import type { Hearth } from '@hearth/client'
import { useWatch } from '../hooks.ts'

/** The household's name in the top bar, live from the replica (renamed in setup, it follows). */
export function HouseholdName(props: { hearth: Hearth | null; fallback: string }) {
  const { data } = useWatch(props.hearth, 'households.get', {})
  return <span class="household-label">{data?.name ?? props.fallback}</span>
}
