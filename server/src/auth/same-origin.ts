/**
 * Whether a browser request comes from a page of this server (or of an allowed origin), read from
 * its `Origin` header, or `Sec-Fetch-Site: same-origin` when a browser sent no `Origin`. A request
 * with neither is refused: every browser of the last years sends one of them on a write, so only
 * a forged or non-browser request lacks both, and those sign in with an API key.
 */
export function fromSameOrigin(
  header: (name: string) => string | undefined,
  allowedOrigins: '*' | readonly string[],
): boolean {
  const origin = header('origin')
  if (origin === undefined || origin === 'null') return header('sec-fetch-site') === 'same-origin'
  let host: string
  try {
    host = new URL(origin).host
  } catch {
    return false
  }
  if (host === header('host')) return true
  return allowedOrigins !== '*' && allowedOrigins.includes(origin)
}
