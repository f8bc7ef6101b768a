/**
 * Whether an error says a prepared statement no longer fits the schema (DDL since it was
 * prepared: "cached plan must not change result type") or is gone. Both stores' prepared
 * statements then prepare afresh.
 */
export function isStaleStatement(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: string; message?: string }
  return code === '26000' || (code === '0A000' && /cached plan/.test(String(message)))
}
