/**
 * The positions to send after moving the item at `from` to `to` in a group's list: the whole
 * group numbered 0, 1, 2... in its new order (`categories.reorder` items), so a drag or a key
 * press needs one call and no gaps are assumed.
 */
export function reorderedPositions(
  ids: readonly string[],
  from: number,
  to: number,
): { id: string; position: number }[] {
  if (from === to || from < 0 || to < 0 || from >= ids.length || to >= ids.length) return []
  const order = [...ids]
  const [moved] = order.splice(from, 1)
  order.splice(to, 0, moved!)
  return order.map((id, position) => ({ id, position }))
}
